package serve

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
)

// session is a legacy client's Streamable HTTP session with one server: the
// Mcp-Session-Id serve gave its initialize, and the core (with its own
// server process, or its own session with a remote server) that serves it
// until the client deletes it, goes idle, or the server fails.
type session struct {
	id    string
	entry *entry
	core  *core
}

// newSession begins a session of e for a client's initialize.
func (s *Server) newSession(e *entry, id identity) *session {
	sid := s.newSessionID()
	ss := &session{id: sid, entry: e}
	ss.core = s.startCore(e, id, true, "server "+e.name+" session "+sid[len(sid)-8:])
	s.mu.Lock()
	s.sessions[sid] = ss
	s.mu.Unlock()
	go func() {
		<-ss.core.done
		s.mu.Lock()
		if s.sessions[sid] == ss {
			delete(s.sessions, sid)
		}
		s.mu.Unlock()
	}()
	return ss
}

// newSessionID is a random id (the replica that holds the session first,
// when there are several: replica.go).
func (s *Server) newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return s.cfg.Replicas.sessionPrefix() + hex.EncodeToString(b)
}

// session returns session sid of entry e, nil when there is none (it
// ended, or it is another server's).
func (s *Server) session(sid string, e *entry) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[sid]
	if ss == nil || ss.entry != e || ss.core.ended() {
		return nil
	}
	return ss
}

// get opens a session's stream of the server's own messages.
func (s *Server) get(w http.ResponseWriter, r *http.Request, e *entry) {
	if !accepts(r, "text/event-stream") {
		http.Error(w, "Not Acceptable: Accept must list text/event-stream", http.StatusNotAcceptable)
		return
	}
	sid := r.Header.Get(mcphttp.HeaderSessionID)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed: a GET stream needs an Mcp-Session-Id (2026-07-28 clients listen with subscriptions/listen)", http.StatusMethodNotAllowed)
		return
	}
	ss := s.session(sid, e)
	if ss == nil {
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
		return
	}
	st := newStream(w, nil, nil)
	if !ss.core.router.openGet(st) {
		http.Error(w, "Conflict: the session's GET stream is open already", http.StatusConflict)
		return
	}
	st.mu.Lock()
	st.start()
	st.rc.Flush()
	st.mu.Unlock()
	defer ss.core.router.closeGet(st)
	keep := time.NewTicker(25 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			st.close()
			return
		case <-ss.core.done:
			st.close()
			return
		case <-keep.C:
			st.comment()
		}
	}
}

// delete ends a session: its core answers what it accepted and stops the
// server.
func (s *Server) delete(w http.ResponseWriter, r *http.Request, e *entry) {
	sid := r.Header.Get(mcphttp.HeaderSessionID)
	s.mu.Lock()
	ss := s.sessions[sid]
	if ss != nil && ss.entry == e {
		delete(s.sessions, sid)
	} else {
		ss = nil
	}
	s.mu.Unlock()
	if ss == nil {
		http.Error(w, "Not Found: no such session", http.StatusNotFound)
		return
	}
	ss.core.end()
	w.WriteHeader(http.StatusNoContent)
}
