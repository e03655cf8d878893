package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"

	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// Server→client requests of a legacy server (roots/list, sampling/createMessage,
// elicitation/create). The proxy's upstream session declares mcpsum's fixed
// capability set (mcpwire.ClientCapabilities), so a server may ask for any
// of them; once the surface check lets it through (serverMessage), each
// request reaches a legacy client only if the client declared the capability
// it needs, and the proxy answers the others itself at once (-32601 with a
// message saying why), so a server never waits on a client that cannot
// answer. (A 2026-07-28 client is asked through MRTR only when the running
// call declared the capability: bridgeServerRequest.)

// refuseUndeclared answers a server request the client cannot take.
func (p *Proxy) refuseUndeclared(id []byte, method, need string) {
	if up := p.upWriter(); up != nil {
		up.write(errorLine(id, &rpcError{Code: mcpwire.CodeMethodNotFound,
			Message: fmt.Sprintf("mcpsum: the client did not declare the %s capability, so the proxy answers %s for it", need, mcpwire.TruncateQuote(method, 80))}))
	}
}

// clientDeclared reports whether the legacy client's initialize declared
// the capability a server→client request needs, and names it (p.mu held).
// Requests outside roots, sampling and elicitation need none here. An
// elicitation needs elicitation.url for mode "url", and elicitation.form
// (or an elicitation object naming no mode, the 2025-06-18 form) otherwise.
func (p *Proxy) clientDeclared(method string, line []byte, env envelope) (string, bool) {
	key := capOf[method]
	if key == "" {
		return "", true
	}
	return declared(p.clientCaps, method, key, line, env.params)
}

// declared reports whether the capabilities object caps (a legacy client's
// from initialize, or a 2026-07-28 request's from its _meta) declares
// capability key for a request with method and params; see clientDeclared.
func declared(caps []byte, method, key string, line []byte, params span) (string, bool) {
	f, ok, _ := fields(caps, span{0, len(caps)}, key)
	if !ok || !f[0].ok() || string(f[0].of(caps)) == "null" {
		return key, false
	}
	if method != "elicitation/create" {
		return key, true
	}
	pf, _, _ := fields(line, params, "mode")
	mode, _ := stringAt(line, pf[0])
	modes, _, _ := fields(caps, f[0], "form", "url")
	switch {
	case mode == "url":
		return "elicitation.url", modes[1].ok()
	case modes[0].ok() || !modes[1].ok():
		return "elicitation.form", true
	}
	return "elicitation.form", false
}

// checkInputRequests checks every entry of an input_required result's
// inputRequests (the object at sp in line) before any is passed on: MRTR
// allows only the three client requests, and each needs a capability that
// caps declares. It returns the refusal to send the client ("" if none).
func checkInputRequests(caps, line []byte, sp span) string {
	var refusal string
	_, err := jsonscan.Members(line[:sp.e], sp.s, func(key string, _, vs, ve int) error {
		f, _, _ := fields(line, span{vs, ve}, "method", "params")
		method, _ := stringAt(line, f[0])
		capKey := capOf[method]
		if capKey == "" {
			refusal = fmt.Sprintf("\"%s\", which is not a request a server may make of a client", mcpwire.TruncateQuote(method, 80))
			return errStop
		}
		if need, ok := declared(caps, method, capKey, line, f[1]); !ok {
			refusal = fmt.Sprintf("%s, which needs the %s capability the client did not declare", method, need)
			return errStop
		}
		return nil
	})
	if err != nil && refusal == "" {
		refusal = "an inputRequests value that is not an object of requests"
	}
	if refusal == "" {
		return ""
	}
	return "mcpsum: the server asked for input through " + refusal + "; the proxy did not forward it and the call fails"
}
