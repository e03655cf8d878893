package proxy

import (
	"bytes"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/rootshold"
)

// A legacy server's roots/list that no call can carry: server-filesystem
// asks right after initialized, before any client call. A legacy client
// gets it as soon as it has initialized. A 2026-07-28 client can be asked
// only inside one of its calls (MRTR), so the proxy holds the request until
// the client's next tools/call, prompts/get or resources/read: when that
// request declares roots, the proxy answers it with input_required asking
// roots/list (nothing is forwarded yet); the client's retry carries its
// roots, which answer the server's request, and the retry then goes to the
// server as an ordinary call, so the server has the client's roots before
// it runs the call. A request that does not declare roots gets the server
// an empty list, as a client without roots would.

const heldRootsKey = "mcpsum-roots"

// isCall reports whether method may answer input_required in 2026-07-28.
func isCall(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// holdRoots keeps a legacy server's roots/list for the client's next call;
// false when one is already held (the caller answers this one).
func (p *Proxy) holdRoots(line []byte, id []byte) bool { return p.roots.Keep(line, id) }

// rootsForCall handles a 2026-07-28 client's call while a roots/list is
// held (internal/rootshold). It returns the request to go on with (the
// retry without its inputResponses and requestState once they answered the
// server), or nil when it answered the client itself. The server settles
// after it got the roots, before it gets the call (startup.go).
func (p *Proxy) rootsForCall(r *request, stateSp, respSp jsonline.Span) *request {
	held, upID, token := p.roots.Held()
	if held == nil && !stateSp.OK() {
		return r
	}
	st, hasState := jsonline.StringAt(r.line, stateSp)
	carried, isCarried := rootshold.Carried{}, false
	if hasState {
		carried, isCarried = p.roots.CarriedBy(st)
	}
	if hasState && (token != "" && st == token || isCarried) {
		rf, _, _ := jsonline.Fields(r.line, respSp, heldRootsKey)
		resp := rf[0].Of(r.line)
		if resp == nil || resp[0] != '{' {
			p.out.WriteLine(jsonline.ErrorLine(r.id, invalidParams("inputResponses lacks %q, the answer to the roots/list mcpsum asked for", heldRootsKey)))
			return nil
		}
		mark := p.stderrMark()
		if held != nil && p.answerHeldRoots(upID, resp) { // false: answered meanwhile (another retry)
			p.settle(mark)
		}
		params := withoutMember(r.line, r.env.Params, "inputResponses")
		params = withoutMember(params, jsonline.Span{Start: 0, End: len(params)}, "requestState")
		if isCarried {
			// The call's own round goes on: the retry is the call as it
			// came, with its requestState and inputResponses.
			params = withCarried(params, carried)
		}
		nr, err := r.withParams(params)
		if err != nil {
			p.out.WriteLine(jsonline.ErrorLine(r.id, invalidParams("%v", err)))
			return nil
		}
		return nr
	}
	if held == nil {
		return r
	}
	if !hasClientCap(r, "roots") {
		p.answerHeldRoots(upID, []byte(`{"roots":[]}`))
		return r
	}
	if stateSp.OK() {
		// The call came with a round of its own (an approval, a server's
		// input round): a token of its own keeps it for the retry.
		token = p.roots.Carry(p.newToken, rootshold.Carried{State: stateSp.Of(r.line), Responses: respSp.Of(r.line)})
	} else {
		token = p.roots.Token(p.newToken)
	}
	env, _, _ := jsonline.ScanEnvelope(held)
	params := env.Params.Of(held)
	if params == nil {
		params = []byte(`{}`)
	}
	b := []byte(`{"resultType":"input_required","inputRequests":{"` + heldRootsKey + `":{"method":"roots/list","params":`)
	b = append(b, params...)
	b = append(b, `}},"requestState":`...)
	b = jsonline.AppendJSON(b, token)
	p.out.WriteLine(jsonline.ResultLine(r.id, append(b, '}')))
	return nil
}

// answerHeldRoots answers the held roots/list (once); false when it was
// answered already.
func (p *Proxy) answerHeldRoots(upID, result []byte) bool {
	if !p.roots.Take(upID) {
		return false
	}
	if up := p.upWriter(); up != nil {
		up.WriteLine(jsonline.ResultLine(upID, result))
	}
	return true
}

// withCarried puts a carried round's requestState and inputResponses back
// into params (a JSON object without them).
func withCarried(params []byte, c rootshold.Carried) []byte {
	extra := append([]byte(`"requestState":`), c.State...)
	if c.Responses != nil {
		extra = append(append(extra, `,"inputResponses":`...), c.Responses...)
	}
	end := len(params) - 1 // the closing brace
	for end > 0 && params[end] != '}' {
		end--
	}
	out := append([]byte(nil), params[:end]...)
	if t := bytes.TrimRight(out, " \t\r\n"); len(t) > 0 && t[len(t)-1] != '{' {
		out = append(out, ',')
	}
	out = append(append(out, extra...), params[end:]...)
	return out
}
