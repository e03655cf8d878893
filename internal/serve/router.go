package serve

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// router is the Out of a core's downstream (proxy.Downstream): it reads
// each line the core writes for the client and sends it to the HTTP
// stream that waits for it. An answer goes to the POST of the request it
// answers (which it ends); a streamed answer, whose id comes last, to the
// request the core named first (Streaming); a progress notification to the
// POST whose request set its progressToken; a listen stream's
// notifications to the listen's POST (its subscriptionId is that
// request's id); anything else (a legacy server's request to the client,
// log messages, list_changed) to the session's GET stream, else to the
// latest POST still waiting, else, for a legacy session, into a bounded
// backlog the next GET stream gets first.
//
// The core's writer calls Write one line at a time (jsonline.Writer), so
// the router writes to one stream at a time in the core's order; r.mu
// guards the tables and is not held while a stream is written.
type router struct {
	mu       sync.Mutex
	pending  map[string]*stream // by request id (raw JSON)
	progress map[string]*stream // by progressToken (raw JSON)
	latest   []*stream          // POST streams waiting, oldest first
	get      *stream
	legacy   bool // keep a backlog for the next GET stream
	backlog  [][]byte
	blBytes  int

	// the line being written (only the core's writer touches these)
	buf       []byte  // a whole message that came in several writes
	streaming bool    // the line is a streamed answer
	target    *stream // of the streamed answer (nil: dropped)

	gone atomic.Bool // the client ended its session
}

// backlog bounds.
const (
	maxBacklog      = 64
	maxBacklogBytes = 4 << 20
)

func newRouter(legacy bool) *router {
	return &router{pending: map[string]*stream{}, progress: map[string]*stream{}, legacy: legacy}
}

// errBusyID: a request with that id waits already.
var errBusyID = errors.New("a request with this id is in flight already")

// register makes st the stream of its request's answer (st.id) and of
// its progress notifications (st.token).
func (r *router) register(st *stream) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := string(st.id)
	if r.pending[k] != nil || (st.token != "" && r.progress[st.token] != nil) {
		return errBusyID
	}
	r.pending[k] = st
	if st.token != "" {
		r.progress[st.token] = st
	}
	r.latest = append(r.latest, st)
	return nil
}

// free reports whether nothing in flight uses id or token (modern pools).
func (r *router) free(id []byte, token string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pending[string(id)] == nil && (token == "" || r.progress[token] == nil)
}

// waiting counts the requests in flight.
func (r *router) waiting() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending)
}

// unregister forgets st (its answer came, or its client went away).
func (r *router) unregister(st *stream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forget(st)
}

func (r *router) forget(st *stream) {
	if r.pending[string(st.id)] == st {
		delete(r.pending, string(st.id))
	}
	if st.token != "" && r.progress[st.token] == st {
		delete(r.progress, st.token)
	}
	for i, s := range r.latest {
		if s == st {
			r.latest = append(r.latest[:i], r.latest[i+1:]...)
			break
		}
	}
}

// openGet makes st the GET stream and hands it the backlog; false when one
// is open already.
func (r *router) openGet(st *stream) bool {
	r.mu.Lock()
	if r.get != nil {
		r.mu.Unlock()
		return false
	}
	r.get = st
	bl := r.backlog
	r.backlog, r.blBytes = nil, 0
	r.mu.Unlock()
	for _, m := range bl {
		st.event(m, false)
	}
	return true
}

func (r *router) closeGet(st *stream) {
	r.mu.Lock()
	if r.get == st {
		r.get = nil
	}
	r.mu.Unlock()
}

// Streaming: the next line is a streamed answer to request id.
func (r *router) Streaming(id []byte) {
	r.mu.Lock()
	r.streaming, r.target = true, r.pending[string(id)]
	if r.target != nil {
		r.forget(r.target)
	}
	r.mu.Unlock()
}

// Gone reports that the client ended its session (the core need not wait
// for its answers to be read).
func (r *router) Gone() bool { return r.gone.Load() }

// Write takes the core's lines (see router).
func (r *router) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if r.streaming {
			part := b
			if i >= 0 {
				part = b[:i]
			}
			if r.target != nil && len(part) > 0 {
				r.target.data(part)
			}
			if i < 0 {
				return n, nil
			}
			if r.target != nil {
				r.target.endData()
			}
			r.streaming, r.target = false, nil
			b = b[i+1:]
			continue
		}
		if i < 0 {
			r.buf = append(r.buf, b...)
			return n, nil
		}
		msg := b[:i]
		if len(r.buf) > 0 {
			r.buf = append(r.buf, msg...)
			msg = r.buf
		}
		r.route(msg)
		r.buf = r.buf[:0]
		b = b[i+1:]
	}
	return n, nil
}

// route sends one whole message to its stream (see router).
func (r *router) route(msg []byte) {
	f, err := jsonscan.Fields(msg, "id", "method", "params")
	if err != nil {
		return // the core writes only messages it built or checked
	}
	r.mu.Lock()
	if f[1] == nil { // an answer
		st := r.pending[string(f[0])]
		if st != nil {
			r.forget(st)
		}
		r.mu.Unlock()
		if st != nil {
			st.event(msg, true)
		}
		return
	}
	var st *stream
	if f[0] == nil && f[2] != nil { // a notification: progress, or a listen stream's
		pf, _ := jsonscan.Fields(f[2], "progressToken", "_meta")
		if pf != nil && pf[0] != nil {
			st = r.progress[string(pf[0])]
		} else if pf != nil && pf[1] != nil {
			mf, _ := jsonscan.Fields(pf[1], "io.modelcontextprotocol/subscriptionId")
			if mf != nil && mf[0] != nil {
				st = r.pending[string(mf[0])]
			}
		}
	}
	if st == nil {
		st = r.get
	}
	if st == nil {
		for i := len(r.latest) - 1; i >= 0 && st == nil; i-- {
			if !r.latest[i].listen {
				st = r.latest[i]
			}
		}
	}
	if st == nil {
		if r.legacy && len(r.backlog) < maxBacklog && r.blBytes+len(msg) <= maxBacklogBytes {
			r.backlog = append(r.backlog, bytes.Clone(msg))
			r.blBytes += len(msg)
		}
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	st.event(msg, false)
}

// streams returns every stream open (to close them at the end).
func (r *router) streams() []*stream {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*stream
	for _, s := range r.pending {
		out = append(out, s)
	}
	if r.get != nil {
		out = append(out, r.get)
	}
	return out
}
