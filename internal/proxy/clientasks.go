package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The server's requests to the client, checked before they pass: whether
// the client declared the capability a request needs (clientDeclared,
// checkInputRequests, refuseUndeclared), and the mark on elicitations.
//
// A server's elicitation/create reaches the user through the client looking
// like any other prompt, mcpsum's approval included. So every one that
// passes the proxy (a legacy server's request, or an entry of a 2026-07-28
// server's inputRequests) has its message marked with a fixed prefix naming
// the server, and one whose text claims to be mcpsum's is refused: only
// mcpsum's own approval prompt may speak as mcpsum.

// serverPrefix is the mark on a server's elicitation message.
func serverPrefix(server string) string {
	return fmt.Sprintf("[from server %q, not mcpsum] ", server)
}

// claimsMcpsum reports whether any string in the elicitation params v
// (message, schema titles and descriptions, keys) could read as "mcpsum"
// on the client's screen (lookalike.Spells: look-alike letters, dropped
// punctuation, reversed or reordered text).
func claimsMcpsum(v []byte) bool {
	found := false
	var walk func(i int) int
	check := func(s string) { found = found || lookalike.Spells(s, "mcpsum") }
	walk = func(i int) int {
		if i >= len(v) {
			return i
		}
		switch v[i] {
		case '{':
			end, _ := jsonscan.Members(v, i, func(k string, _, vs, _ int) error {
				check(k)
				walk(vs)
				return nil
			})
			return end
		case '[':
			end, _ := jsonscan.Elements(v, i, func(vs, _ int) error { walk(vs); return nil })
			return end
		case '"':
			s, _ := jsonscan.String(v[i:mustSkip(v, i)])
			check(s)
		}
		return mustSkip(v, i)
	}
	walk(jsonscan.SkipWS(v, 0))
	return found
}

func mustSkip(v []byte, i int) int {
	e, err := jsonscan.SkipValue(v, i)
	if err != nil {
		return len(v)
	}
	return e
}

// markElicit returns the params of a server's elicitation/create with its
// message marked as the server's, or why it is refused.
func (p *Proxy) markElicit(params []byte) ([]byte, string) {
	why := "the server's elicitation/create was not forwarded: "
	f, ok, err := jsonline.Fields(params, jsonline.Span{Start: 0, End: len(params)}, "message")
	msg, isStr := jsonline.StringAt(params, f[0])
	switch {
	case err != nil || !ok || len(params) == 0:
		return nil, why + "its params are not a JSON object with unique members"
	case !isStr:
		return nil, why + "it has no string message"
	case claimsMcpsum(params):
		return nil, why + "its text claims to come from mcpsum, whose approval prompts only mcpsum may show"
	}
	marked := jsonline.AppendJSON(nil, serverPrefix(p.opts.Name)+msg)
	return jsonline.Concat(params[:f[0].Start], marked, params[f[0].End:]), ""
}

// markInputRequests returns the inputRequests object at sp in line with
// each elicitation/create's message marked (markElicit), or why it is
// refused. Other entries keep their bytes.
func (p *Proxy) markInputRequests(line []byte, sp jsonline.Span) ([]byte, string) {
	out := []byte{'{'}
	var refusal string
	_, err := jsonscan.Members(line[:sp.End], sp.Start, func(key string, ks, vs, ve int) error {
		if len(out) > 1 {
			out = append(out, ',')
		}
		f, _, _ := jsonline.Fields(line, jsonline.Span{Start: vs, End: ve}, "method", "params")
		if m, _ := jsonline.StringAt(line, f[0]); m != "elicitation/create" || !f[1].OK() {
			out = append(out, line[ks:ve]...)
			return nil
		}
		marked, why := p.markElicit(f[1].Of(line))
		if why != "" {
			refusal = why
			return errStop
		}
		out = append(out, line[ks:f[1].Start]...)
		out = append(out, marked...)
		out = append(out, line[f[1].End:ve]...)
		return nil
	})
	if refusal != "" {
		return nil, refusal
	}
	if err != nil {
		return nil, "mcpsum: the server's inputRequests is not an object of requests"
	}
	return append(out, '}'), ""
}

// refuseElicit answers a legacy server's elicitation/create that is not
// forwarded, and says so on stderr.
func (p *Proxy) refuseElicit(id []byte, why string) {
	p.logf("%s", why)
	if up := p.upWriter(); up != nil {
		up.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeInvalidParams, Message: "mcpsum: " + why}))
	}
}

// refuseUndeclared answers a server request the client cannot take.
func (p *Proxy) refuseUndeclared(id []byte, method, need string) {
	if up := p.upWriter(); up != nil {
		up.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeMethodNotFound,
			Message: fmt.Sprintf("mcpsum: the client did not declare the %s capability, so the proxy answers %s for it", need, termtext.TruncateQuote(method, 80))}))
	}
}

// clientDeclared reports whether the legacy client's initialize declared
// the capability a server→client request needs, and names it (p.mu held).
// Requests outside roots, sampling and elicitation need none here. An
// elicitation needs elicitation.url for mode "url", and elicitation.form
// (or an elicitation object naming no mode, the 2025-06-18 form) otherwise.
func (p *Proxy) clientDeclared(method string, line []byte, env jsonline.Envelope) (string, bool) {
	key := capOf[method]
	if key == "" {
		return "", true
	}
	return declared(p.client.caps, method, key, line, env.Params)
}

// declared reports whether the capabilities object caps (a legacy client's
// from initialize, or a 2026-07-28 request's from its _meta) declares
// capability key for a request with method and params; see clientDeclared.
func declared(caps []byte, method, key string, line []byte, params jsonline.Span) (string, bool) {
	f, ok, _ := jsonline.Fields(caps, jsonline.Span{Start: 0, End: len(caps)}, key)
	if !ok || !f[0].OK() || string(f[0].Of(caps)) == "null" {
		return key, false
	}
	if method != "elicitation/create" {
		return key, true
	}
	pf, _, _ := jsonline.Fields(line, params, "mode")
	mode, _ := jsonline.StringAt(line, pf[0])
	modes, _, _ := jsonline.Fields(caps, f[0], "form", "url")
	switch {
	case mode == "url":
		return "elicitation.url", modes[1].OK()
	case modes[0].OK() || !modes[1].OK():
		return "elicitation.form", true
	}
	return "elicitation.form", false
}

// checkInputRequests checks every entry of an input_required result's
// inputRequests (the object at sp in line) before any is passed on: MRTR
// allows only the three client requests, and each needs a capability that
// caps declares. It returns the refusal to send the client ("" if none).
func checkInputRequests(caps, line []byte, sp jsonline.Span) string {
	var refusal string
	_, err := jsonscan.Members(line[:sp.End], sp.Start, func(key string, _, vs, ve int) error {
		f, _, _ := jsonline.Fields(line, jsonline.Span{Start: vs, End: ve}, "method", "params")
		method, _ := jsonline.StringAt(line, f[0])
		capKey := capOf[method]
		if capKey == "" {
			refusal = fmt.Sprintf("\"%s\", which is not a request a server may make of a client", termtext.TruncateQuote(method, 80))
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

// maxDownPending bounds the server's requests forwarded to the client and
// not answered yet; past it the proxy answers the server with an error.
const maxDownPending = 64
