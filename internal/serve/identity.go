package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/mcpsum/mcpsum/internal/policy"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// A client's identity keys its taint state: the token it presented, and
// the session it names in the Mcpsum-Session header (any era; optional).
// It is never a legacy Mcp-Session-Id: a client has one of those per
// server, and taint must cross every server one client uses (a source read
// through one server taints the sink of another). Clients that share the
// token and name no session share one taint state: more approvals, never
// fewer (docs/serve.md).

// HeaderClientSession is the header a client names its session with.
const HeaderClientSession = "Mcpsum-Session"

// maxClientSession bounds the header's value (the taint session id it is
// part of has at most 64 characters).
const maxClientSession = 40

// identity is who calls: its taint session's id.
type identity struct {
	taint string // the policy session id: serve-<token digest>[-<Mcpsum-Session>]
}

// identify reads a request's identity; an Mcpsum-Session that cannot name
// a session is an error for the client.
func (s *Server) identify(r *http.Request) (identity, error) {
	sum := sha256.Sum256([]byte(s.cfg.Token))
	id := "serve-" + hex.EncodeToString(sum[:6])
	if v := r.Header.Get(HeaderClientSession); v != "" {
		if len(v) > maxClientSession || policy.ValidSessionID(v) != nil {
			return identity{}, fmt.Errorf("the %s header %s must be 1-%d characters of A-Z a-z 0-9 . _ - and not start with a dot", HeaderClientSession, termtext.Quoted(v, 80), maxClientSession)
		}
		id += "-" + v
	}
	return identity{taint: id}, nil
}
