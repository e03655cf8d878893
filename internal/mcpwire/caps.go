package mcpwire

import (
	"encoding/json"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// The client capabilities mcpsum declares: one fixed set, the same for lock,
// verify and the proxy's upstream session, because real servers change what
// they serve with the client's capabilities (the npm server-everything lists
// 13 tools to a client declaring nothing and 17 to one declaring this set).
// So the surface pinned by lock is exactly the surface the proxy's upstream
// session sees, and roots, sampling and elicitation can reach a client behind
// the proxy that declared them. The set is the same in both eras; only its
// spelling differs (2026-07-28 dropped roots.listChanged):
//
//	legacy initialize:     {"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true},"sampling":{}}
//	2026-07-28 _meta:      {"elicitation":{"form":{},"url":{}},"roots":{},"sampling":{}}
//
// tasks and sampling's context/tools are not declared. Locks written by
// mcpsum before this set was declared were made with {} (nothing): a server
// whose surface depends on the client's capabilities shows the extra items as
// added (definitional drift) until it is re-locked.
const (
	legacyClientCapabilities = `{"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true},"sampling":{}}`
	modernClientCapabilities = `{"elicitation":{"form":{},"url":{}},"roots":{},"sampling":{}}`
)

// DeclaredCapabilities lists the capability names mcpsum declares, for
// messages and show.
var DeclaredCapabilities = []string{"roots", "sampling", "elicitation"}

// ClientCapabilities returns the capabilities mcpsum declares in era
// (EraLegacy: initialize; EraModern: every request's _meta), as JSON.
func ClientCapabilities(era string) json.RawMessage {
	if era == mcpspec.EraModern {
		return json.RawMessage(modernClientCapabilities)
	}
	return json.RawMessage(legacyClientCapabilities)
}
