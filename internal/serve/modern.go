package serve

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// 2026-07-28 requests stand alone: no session, each POST one request. The
// cores that serve them are pooled by server and client identity (the
// token, and the Mcpsum-Session a client names): a request goes to a core
// of its identity where nothing in flight has its id or progress token,
// and a core is added when none is free (two clients sharing a token use
// the same ids). So one identity's requests share one server process (a
// stateless server keeps nothing between them), while another identity's
// never run in it, and each core's taint hooks are its identity's.

type poolKey struct{ server, identity string }

// pool is the cores serving one identity's 2026-07-28 requests to one
// server (guarded by Server.mu).
type pool struct{ cores []*core }

// maxPool bounds the cores of one pool: past it a request whose id
// overlaps every core's is refused (409), as a reused id in a session is.
const maxPool = 16

func (p *pool) all() []*core { return p.cores }
func (p *pool) empty() bool  { return len(p.cores) == 0 }

// reap removes the cores that ended or are idle longer than idle and
// returns those to end.
func (p *pool) reap(now time.Time, idle time.Duration) []*core {
	var out []*core
	kept := p.cores[:0]
	for _, c := range p.cores {
		switch {
		case c.ended():
		case c.idleSince(now) > idle:
			out = append(out, c)
		default:
			kept = append(kept, c)
		}
	}
	p.cores = kept
	return out
}

// modern serves a 2026-07-28 request.
func (s *Server) modern(w http.ResponseWriter, r *http.Request, e *entry, id identity, m *message) {
	if rest, ok := strings.CutPrefix(m.state, "mcpsum-"); ok && s.forwardOwner(w, withBody(r, m.line), owner(rest)) {
		return // a retry of an input round another replica's core holds
	}
	st := newStream(w, m.id, nil)
	st.token, st.listen = m.token, m.method == "subscriptions/listen"
	c := s.place(e, id, st, m.state)
	if c == nil {
		rpcError(w, http.StatusConflict, m.id, mcpspec.CodeInvalidRequest, "too many requests with this id or progress token are in flight for this client: ids must be unique among a client's requests in flight")
		return
	}
	s.sendAwait(w, r, c, st, m)
}

// place registers st with a core of the pool of (e, id) that has neither
// its id nor its progress token in flight, starting one when none has
// room; nil when the pool is full.
func (s *Server) place(e *entry, id identity, st *stream, state string) *core {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := poolKey{e.name, id.taint}
	p := s.pools[k]
	if p == nil {
		p = &pool{}
		s.pools[k] = p
	}
	for _, c := range p.cores {
		if state != "" && strings.HasPrefix(state, c.prefix) {
			// a retry of an input round this core holds goes to it
			if c.ended() {
				break
			}
			if c.router.register(st) != nil {
				return nil
			}
			return c
		}
	}
	for _, c := range p.cores {
		if !c.ended() && c.router.register(st) == nil {
			return c
		}
	}
	if len(p.cores) >= maxPool || s.closed {
		return nil
	}
	c := s.startCore(e, id, false, "server "+e.name+" for "+id.taint)
	p.cores = append(p.cores, c)
	c.router.register(st)
	return c
}

// modernNote takes a 2026-07-28 notification: a cancellation goes to the
// core that runs the request it names; anything else has no one to go to.
func (s *Server) modernNote(w http.ResponseWriter, e *entry, id identity, m *message) {
	if m.method == "notifications/cancelled" {
		f, _ := jsonscan.Fields(m.line, "params")
		var rid []byte
		if f != nil && f[0] != nil {
			pf, _ := jsonscan.Fields(f[0], "requestId")
			if pf != nil {
				rid = pf[0]
			}
		}
		s.mu.Lock()
		var target *core
		if p := s.pools[poolKey{e.name, id.taint}]; p != nil && rid != nil {
			for _, c := range p.cores {
				if !c.router.free(rid, "") {
					target = c
					break
				}
			}
		}
		s.mu.Unlock()
		if target != nil {
			target.send(m.line)
		}
	}
	w.WriteHeader(http.StatusAccepted)
}

// withBody is r with its body (read already) to send on.
func withBody(r *http.Request, body []byte) *http.Request {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return r
}
