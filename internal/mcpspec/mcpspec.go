package mcpspec

// Modern is the 2026-07-28 protocol version (no initialize; _meta on every request).
const Modern = "2026-07-28"

// Era names, as in a lock entry.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// Legacy protocol versions, the ones negotiated by initialize.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
)

// LegacyVersion is the version mcpsum asks for in initialize.
const LegacyVersion = Version20251125

// LegacyVersions are the initialize versions mcpsum accepts in a reply, oldest first.
var LegacyVersions = []string{Version20241105, Version20250326, Version20250618, Version20251125}

// IsVersion reports whether v has a protocol version's shape (YYYY-MM-DD);
// versions of that shape compare as strings.
func IsVersion(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range v {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Meta keys of 2026-07-28 (members of a request's or result's _meta).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId" // on a listen stream's notifications
)

// JSON-RPC and MCP error codes mcpsum recognises.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeMissingClientCapability is 2026-07-28's MissingRequiredClientCapability.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedVersion is 2026-07-28's UnsupportedProtocolVersion.
	CodeUnsupportedVersion = -32022
)

// MaxItems is mcpsum's cap on the items of one kind (tools, prompts,
// resources, resource templates) a server may list and a lock entry may hold
// (LOCKFILE.md).
const MaxItems = 1000

// MaxMessage is mcpsum's cap on one message from a server, whatever
// carries it: a stdio line, an SSE event's data, a JSON body (go-sdk's own
// limit is 16 MiB; no MCP client takes larger ones).
const MaxMessage = 64 << 20

// MaxCallsInFlight is the proxy's cap on a client's calls forwarded to the
// server and not answered yet; a call over it gets an error at once.
const MaxCallsInFlight = 1024

// MaxWaitingForServer bounds the bytes of messages the proxy holds for a
// stdio server that has not read them yet (each counted with a small
// per-message overhead): a server that does not read its input while that
// much waits is stopped. One message of any size the proxy accepts (the
// 64 MiB line limit) always fits when nothing else waits.
const MaxWaitingForServer = 64 << 20

// Item kinds, singular, as in findings, integrity errors and item keys.
const (
	KindTool             = "tool"
	KindPrompt           = "prompt"
	KindResource         = "resource"
	KindResourceTemplate = "resourceTemplate"
)

// Kind describes one kind of listed item: how a server advertises and lists
// it, and how a lock entry holds and keys it.
type Kind struct {
	Name       string // singular: KindTool, …
	Capability string // server capability that enables its list method
	Method     string // list method
	Field      string // list result array, and the lock entry and digests member
	Key        string // member naming an item
	Noun       string // for messages: "resource template"
}

// Kinds are the four item kinds in lockfile order.
var Kinds = [4]Kind{
	{KindTool, "tools", "tools/list", "tools", "name", "tool"},
	{KindPrompt, "prompts", "prompts/list", "prompts", "name", "prompt"},
	{KindResource, "resources", "resources/list", "resources", "uri", "resource"},
	{KindResourceTemplate, "resources", "resources/templates/list", "resourceTemplates", "uriTemplate", "resource template"},
}

// KindIndex returns the index in Kinds of the kind named name.
func KindIndex(name string) (int, bool) {
	for i, k := range Kinds {
		if k.Name == name {
			return i, true
		}
	}
	return 0, false
}

// IsListMethod reports whether method lists one of the item kinds.
func IsListMethod(method string) bool {
	for _, k := range Kinds {
		if k.Method == method {
			return true
		}
	}
	return false
}
