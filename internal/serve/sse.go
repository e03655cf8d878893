package serve

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// stream is one HTTP response that carries messages for the client as
// server-sent events: a POST's answer stream (its request's answer ends
// it) or a session's GET stream. The router writes to it from the core's
// writer; the handler that owns the response waits for done and closes it
// before it returns, so nothing is written to a response that ended.
//
// A POST whose answer is the first message for it gets that answer as a
// plain JSON body instead (the client must accept both, and serve refuses
// one whose Accept does not list both: request.go), written in one piece
// with its headers and its length: no event framing, no end of a chunked
// stream to follow it, so a client that reads the response to its end has
// it at once.
type stream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	head    func(h http.Header) // sets the response's headers before the first event (nil: none)
	started bool                // status and headers written
	inEvent bool                // a streamed event has begun
	closed  bool                // the handler returned or the client went away
	events  int                 // events written

	id      []byte        // the request whose answer ends it (nil: the GET stream)
	listen  bool          // a subscriptions/listen: it stays open after its acknowledgement
	token   string        // its request's progressToken (raw JSON), "" if none
	done    chan struct{} // closed once its answer was written
	doneSet bool
}

// writeWait bounds each write to a client: one that stops reading for
// longer loses the stream (its messages are dropped), so it cannot hold up
// the session's other streams.
const writeWait = 30 * time.Second

func newStream(w http.ResponseWriter, id []byte, head func(http.Header)) *stream {
	return &stream{w: w, rc: http.NewResponseController(w), head: head, id: id, done: make(chan struct{})}
}

// start writes the status and headers of an event stream (s.mu held).
func (s *stream) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	if s.head != nil {
		s.head(h)
	}
	s.w.WriteHeader(http.StatusOK)
}

// write writes b, bounded by writeWait; a failed write closes the stream
// (s.mu held).
func (s *stream) write(b []byte) {
	if s.closed {
		return
	}
	s.rc.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := s.w.Write(b); err != nil {
		s.closed = true
	}
}

var (
	eventHead = []byte("event: message\ndata: ")
	eventEnd  = []byte("\n\n")
)

// event writes one whole message as an event and flushes it; answer ends
// the stream's wait. It reports whether the stream took it.
func (s *stream) event(msg []byte, answer bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if answer && !s.started && s.id != nil && !s.listen {
		s.started = true
		s.plain(msg)
		s.events++
		s.answered()
		return !s.closed
	}
	s.start()
	s.write(eventHead)
	s.write(msg)
	s.write(eventEnd)
	s.rc.Flush()
	s.events++
	if answer {
		s.answered()
	}
	return !s.closed
}

// data writes part of a streamed message (its event begins first).
func (s *stream) data(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.start()
	if !s.inEvent {
		s.inEvent = true
		s.write(eventHead)
	}
	s.write(b)
	s.rc.Flush()
}

// endData ends a streamed message: the event, and the stream's wait.
func (s *stream) endData() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inEvent {
		s.write(eventEnd)
		s.rc.Flush()
		s.inEvent = false
		s.events++
	}
	s.answered()
}

// comment writes an SSE comment (a keep-alive).
func (s *stream) comment() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.started || s.inEvent {
		return
	}
	s.write([]byte(": keep-alive\n\n"))
	s.rc.Flush()
}

// answered ends the stream's wait once (s.mu held).
func (s *stream) answered() {
	if !s.doneSet {
		s.doneSet = true
		close(s.done)
	}
}

// close is the handler's: nothing is written after it.
func (s *stream) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// plain writes the answer as the whole response, and flushes it: one
// JSON body whose length is known, so headers and body leave in one
// write, with no end of a stream to follow (s.mu held).
func (s *stream) plain(msg []byte) {
	h := s.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(msg)))
	if s.head != nil {
		s.head(h)
	}
	s.w.WriteHeader(http.StatusOK)
	s.write(msg)
	s.rc.Flush()
}

// wrote reports whether any event went out (the response has begun).
func (s *stream) wrote() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// answeredNow ends the stream's wait without an answer (its core ended).
func (s *stream) answeredNow() {
	s.mu.Lock()
	s.answered()
	s.mu.Unlock()
}
