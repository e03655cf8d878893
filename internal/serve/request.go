package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// A POST: its body read and checked before anything reaches a core, then
// handed to the legacy session it names (session.go), a new session (an
// initialize), or a 2026-07-28 core (modern.go).

// codeHeaderMismatch is 2026-07-28's HeaderMismatch (HTTP only).
const codeHeaderMismatch = -32020

// message is a client message read from a POST.
type message struct {
	line   []byte // one line (line breaks turned into tabs)
	id     []byte // raw JSON; nil for a notification or a response
	method string
	token  string // a request's _meta.progressToken (raw JSON), "" if none
	state  string // a request's params.requestState, "" if none
}

func (m *message) request() bool { return m.method != "" && m.id != nil && string(m.id) != "null" }

// readMessage reads and checks a POST's body: JSON, one JSON-RPC object
// (no batch), within the size limit. A refusal is answered here.
func (s *Server) readMessage(w http.ResponseWriter, r *http.Request) (*message, bool) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		http.Error(w, "Unsupported Media Type: Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return nil, false
	}
	if !accepts(r, "application/json") || !accepts(r, "text/event-stream") {
		http.Error(w, "Not Acceptable: Accept must list application/json and text/event-stream", http.StatusNotAcceptable)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			s.logf("413 for POST %s from %s: a body over %d bytes", termtext.Quoted(r.URL.Path, 100), r.RemoteAddr, s.cfg.MaxBody)
			http.Error(w, fmt.Sprintf("Request Entity Too Large: a message may have at most %d bytes", s.cfg.MaxBody), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "Bad Request: reading the body: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		rpcError(w, http.StatusBadRequest, nil, mcpspec.CodeInvalidRequest, "mcpsum serve takes one JSON-RPC message per POST, not a batch")
		return nil, false
	}
	if !json.Valid(body) {
		rpcError(w, http.StatusBadRequest, nil, mcpspec.CodeParseError, "parse error: the body is not JSON")
		return nil, false
	}
	f, err := jsonscan.Fields(body, "id", "method", "params", "result", "error")
	if err != nil || len(body) == 0 || body[0] != '{' {
		rpcError(w, http.StatusBadRequest, nil, mcpspec.CodeInvalidRequest, "invalid request: not one JSON-RPC object with unique member names")
		return nil, false
	}
	m := &message{line: mcphttp.OneLine(body), id: f[0]}
	if f[1] != nil {
		var ok bool
		if m.method, ok = jsonscan.String(f[1]); !ok || m.method == "" {
			rpcError(w, http.StatusBadRequest, f[0], mcpspec.CodeInvalidRequest, "invalid request: method must be a string")
			return nil, false
		}
	} else if f[3] == nil && f[4] == nil {
		rpcError(w, http.StatusBadRequest, f[0], mcpspec.CodeInvalidRequest, "invalid request: not a JSON-RPC request, notification or response")
		return nil, false
	}
	if m.request() && f[2] != nil {
		if pf, err := jsonscan.Fields(f[2], "_meta", "requestState"); err == nil {
			if pf[0] != nil {
				if mf, err := jsonscan.Fields(pf[0], "progressToken"); err == nil && mf[0] != nil {
					m.token = string(mf[0])
				}
			}
			m.state, _ = jsonscan.String(pf[1])
		}
	}
	return m, true
}

// accepts reports whether the request's Accept lists typ (or a wildcard
// that covers it).
func accepts(r *http.Request, typ string) bool {
	major, _, _ := strings.Cut(typ, "/")
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			t, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if t == typ || t == "*/*" || t == major+"/*" {
				return true
			}
		}
	}
	return false
}

// rpcError answers with HTTP status and a JSON-RPC error for id.
func rpcError(w http.ResponseWriter, status int, id []byte, code int, msg string) {
	if id == nil {
		id = []byte("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"code": code, "message": "mcpsum: " + msg})
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, b)
}

// post serves a POST.
func (s *Server) post(w http.ResponseWriter, r *http.Request, e *entry) {
	m, ok := s.readMessage(w, r)
	if !ok {
		return
	}
	ident, err := s.identify(r)
	if err != nil {
		rpcError(w, http.StatusBadRequest, m.id, mcpspec.CodeInvalidRequest, err.Error())
		return
	}
	if sid := r.Header.Get(mcphttp.HeaderSessionID); sid != "" {
		ss := s.session(sid, e)
		if ss == nil {
			http.Error(w, "Not Found: no such session (it ended, or it was never begun here); send initialize to begin a new one", http.StatusNotFound)
			return
		}
		if v := r.Header.Get(mcphttp.HeaderProtocolVersion); v != "" && !slices.Contains(mcpspec.LegacyVersions, v) {
			http.Error(w, "Bad Request: unsupported MCP-Protocol-Version "+termtext.Quoted(v, 40), http.StatusBadRequest)
			return
		}
		s.exchange(w, r, ss.core, m, nil)
		return
	}
	if m.method == "initialize" && m.request() {
		ss := s.newSession(e, ident)
		s.exchange(w, r, ss.core, m, func(h http.Header) { h.Set(mcphttp.HeaderSessionID, ss.id) })
		return
	}
	modern, err := mcphttp.CheckModern(r.Header, m.line, e.params)
	var hm *mcphttp.HeaderMismatchError
	switch {
	case errors.As(err, &hm):
		rpcError(w, http.StatusBadRequest, m.id, codeHeaderMismatch, hm.Msg)
		return
	case modern:
		s.modern(w, r, e, ident, m)
		return
	case r.Header.Get(mcphttp.HeaderProtocolVersion) >= mcpspec.Modern && !m.request():
		s.modernNote(w, e, ident, m)
		return
	}
	http.Error(w, "Bad Request: no Mcp-Session-Id: send initialize first (or a 2026-07-28 request, with _meta on every request)", http.StatusBadRequest)
}

// exchange hands m to core c: a notification or a response is accepted
// (202) once the core took it; a request's answer (and what the core sends
// on its way) comes back as server-sent events on this response. head sets
// headers of the answer (a new session's id). cancel, if set, is what a
// client that went away before the answer means to the core (a 2026-07-28
// request: closing its POST is its cancellation).
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, c *core, m *message, head func(http.Header)) {
	if !m.request() {
		if err := c.send(m.line); err != nil {
			http.Error(w, "Not Found: the session ended", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := newStream(w, m.id, head)
	st.token, st.listen = m.token, m.method == "subscriptions/listen"
	if err := c.router.register(st); err != nil {
		rpcError(w, http.StatusConflict, m.id, mcpspec.CodeInvalidRequest, "a request with this id is in flight already in this session: ids must be unique")
		return
	}
	s.sendAwait(w, r, c, st, m)
}

// sendAwait sends request m to core c, where st waits for its answer.
func (s *Server) sendAwait(w http.ResponseWriter, r *http.Request, c *core, st *stream, m *message) {
	if err := c.send(m.line); err != nil {
		c.router.unregister(st)
		http.Error(w, "Not Found: the session ended", http.StatusNotFound)
		return
	}
	s.await(r, c, st, m)
}

// await waits for st's answer, the client's going away, or the core's end.
func (s *Server) await(r *http.Request, c *core, st *stream, m *message) {
	select {
	case <-st.done:
	case <-r.Context().Done():
		c.router.unregister(st)
		if !c.router.legacy {
			cancelled := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client closed its request"}}`, m.id)
			c.send(cancelled)
		}
	case <-c.done:
	}
	st.close()
	c.touch()
	if !st.wrote() {
		select {
		case <-r.Context().Done():
		default:
			rpcError(st.w, http.StatusOK, m.id, mcpspec.CodeInternalError, "the session ended before the request was answered")
		}
	}
}
