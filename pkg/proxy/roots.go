package proxy

import (
	"sync"

	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/upstream"
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
func (p *Proxy) holdRoots(line []byte, id []byte) bool { return p.roots.hold(line, id) }

// releaseRootsToLegacy delivers a held roots/list to a client that turned
// out to be legacy (it sent initialize after the server asked).
func (p *Proxy) releaseRootsToLegacy() {
	line := p.roots.release()
	if line == nil {
		return
	}
	env, id, err := jsonline.ScanEnvelope(line)
	if err == nil {
		p.serverRequestAt(line, env, id, "roots/list", true)
	}
}

// rootsForCall handles a 2026-07-28 client's call while a roots/list is
// held (rootsHold.forCall); the server settles after it got the roots,
// before it gets the call (startup.go).
func (p *Proxy) rootsForCall(r *request, stateSp, respSp jsonline.Span) *request {
	return p.roots.forCall(r, stateSp, respSp, p.settle)
}

// rootsHold is a legacy server's roots/list held for a 2026-07-28
// client's next call, under a lock of its own: the line, its id, and the
// requestState token asked with. The part is handed the writer to the
// client and the upstream (nil until the server started).
type rootsHold struct {
	out *jsonline.Writer         // to the client
	up  func() upstream.Upstream // the server

	mu       sync.Mutex
	line, id []byte
	token    string
}

func newRootsHold(out *jsonline.Writer, up func() upstream.Upstream) *rootsHold {
	return &rootsHold{out: out, up: up}
}

// hold keeps the server's roots/list line (its id: id); false when one is
// held already.
func (h *rootsHold) hold(line, id []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.line != nil {
		return false
	}
	h.line = append([]byte(nil), line...)
	h.id = append([]byte(nil), id...)
	return true
}

// holding reports whether a roots/list is held.
func (h *rootsHold) holding() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.line != nil
}

// release takes the held line out (nil when none), token and all.
func (h *rootsHold) release() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	line := h.line
	h.line, h.id, h.token = nil, nil, ""
	return line
}

// forCall handles a 2026-07-28 client's call while a roots/list is held.
// It returns the request to go on with (the retry without its
// inputResponses and requestState once they answered the server), or nil
// when it answered the client itself. settle runs after the held request
// was answered from a retry.
func (h *rootsHold) forCall(r *request, stateSp, respSp jsonline.Span, settle func()) *request {
	h.mu.Lock()
	held, upID, token := h.line, h.id, h.token
	h.mu.Unlock()
	if held == nil && (token == "" || !stateSp.OK()) {
		return r
	}
	if st, ok := jsonline.StringAt(r.line, stateSp); ok && token != "" && st == token {
		rf, _, _ := jsonline.Fields(r.line, respSp, heldRootsKey)
		resp := rf[0].Of(r.line)
		if resp == nil || resp[0] != '{' {
			h.out.WriteLine(jsonline.ErrorLine(r.id, invalidParams("inputResponses lacks %q, the answer to the roots/list mcpsum asked for", heldRootsKey)))
			return nil
		}
		if held != nil && h.answer(upID, resp) { // false: answered meanwhile (another retry)
			settle()
		}
		params := withoutMember(r.line, r.env.Params, "inputResponses")
		params = withoutMember(params, jsonline.Span{Start: 0, End: len(params)}, "requestState")
		nr, err := r.withParams(params)
		if err != nil {
			h.out.WriteLine(jsonline.ErrorLine(r.id, invalidParams("%v", err)))
			return nil
		}
		return nr
	}
	if held == nil {
		return r
	}
	if !hasClientCap(r, "roots") {
		h.answer(upID, []byte(`{"roots":[]}`))
		return r
	}
	h.mu.Lock()
	if h.token == "" {
		h.token = newToken()
	}
	token = h.token
	h.mu.Unlock()
	env, _, _ := jsonline.ScanEnvelope(held)
	params := env.Params.Of(held)
	if params == nil {
		params = []byte(`{}`)
	}
	b := []byte(`{"resultType":"input_required","inputRequests":{"` + heldRootsKey + `":{"method":"roots/list","params":`)
	b = append(b, params...)
	b = append(b, `}},"requestState":`...)
	b = jsonline.AppendJSON(b, token)
	h.out.WriteLine(jsonline.ResultLine(r.id, append(b, '}')))
	return nil
}

// answer answers the held roots/list (once); false when it was answered
// already.
func (h *rootsHold) answer(upID, result []byte) bool {
	h.mu.Lock()
	if h.line == nil || string(h.id) != string(upID) {
		h.mu.Unlock()
		return false
	}
	h.line, h.id = nil, nil // the token stays: a late retry carrying it is still the proxy's
	h.mu.Unlock()
	if up := h.up(); up != nil {
		up.WriteLine(jsonline.ResultLine(upID, result))
	}
	return true
}
