package idmap

import (
	"encoding/json"
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// Call is what the map knows of a call sent to the server; the proxy's
// record of a call embeds it.
type Call struct {
	ClientID  []byte     // a forwarded call: the client's id
	Own       chan Reply // or: one of the proxy's own requests, answered here
	Cancelled bool       // set when the map drops a forwarded call
	LogLevel  bool       // counted among the calls that asked for log messages
}

func (c *Call) idCall() *Call { return c }

// Reply answers one of the proxy's own requests.
type Reply struct {
	Result json.RawMessage
	Err    error
}

// Entry is the proxy's record of a call: a pointer to a struct that embeds
// Call.
type Entry interface {
	comparable
	idCall() *Call
}

// Map are the ids the proxy allocates, under a lock of their own. The proxy
// allocates every id it sends to either side: integers from 1 upwards, one
// counter per side, so its own requests can never collide with forwarded
// ones. At most mcpspec.MaxCallsInFlight of the client's calls are
// forwarded and unanswered at once: Forward refuses the next. C is the
// proxy's record of a call, D of a request to the client.
type Map[C Entry, D any] struct {
	mu          sync.Mutex
	nextUp      int64
	upPending   map[int64]C      // by the id sent to the server
	byClient    map[string]int64 // client request id -> upstream id
	calls       int              // the client's calls in upPending (the cap counts them)
	nextDown    int64            // ids of requests sent to the client
	downPending map[int64]D
	logWanted   int // in-flight modern requests that asked for log messages
	streaming   int // calls whose long result is being streamed (no longer in upPending)
}

// New returns an empty map.
func New[C Entry, D any]() *Map[C, D] {
	return &Map[C, D]{upPending: map[int64]C{}, byClient: map[string]int64{}, downPending: map[int64]D{}}
}

// Own records one of the proxy's own requests to the server and returns
// its id.
func (m *Map[C, D]) Own(c C) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ownLocked(c)
}

func (m *Map[C, D]) ownLocked(c C) int64 {
	m.nextUp++
	m.upPending[m.nextUp] = c
	return m.nextUp
}

// Forward records a client's call forwarded to the server and returns the
// id the server sees; false when mcpspec.MaxCallsInFlight calls are in
// flight already (nothing is recorded).
func (m *Map[C, D]) Forward(c C) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls >= mcpspec.MaxCallsInFlight {
		return 0, false
	}
	u := m.ownLocked(c)
	m.calls++
	h := c.idCall()
	m.byClient[string(h.ClientID)] = u
	if h.LogLevel {
		m.logWanted++
	}
	return u, true
}

// Pending is the call sent to the server under id u (the zero C when none).
func (m *Map[C, D]) Pending(u int64) C {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.upPending[u]
}

// DropOwn forgets one of the proxy's own requests.
func (m *Map[C, D]) DropOwn(u int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.upPending, u)
}

// Drop forgets a pending call.
func (m *Map[C, D]) Drop(u int64, c C) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(u, c)
}

func (m *Map[C, D]) dropLocked(u int64, c C) {
	var none C
	if c == none {
		return
	}
	h := c.idCall()
	if h.Own == nil && m.upPending[u] == c {
		m.calls--
	}
	delete(m.upPending, u)
	if h.Own == nil {
		if m.byClient[string(h.ClientID)] == u {
			delete(m.byClient, string(h.ClientID))
		}
		if h.LogLevel {
			m.logWanted--
		}
		h.Cancelled = true
	}
}

// DropClient forgets the client's call with id key and returns it with
// the id the server knows it by (the zero C when none is in flight).
func (m *Map[C, D]) DropClient(key string) (int64, C) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.byClient[key]
	if !ok {
		var none C
		return 0, none
	}
	c := m.upPending[u]
	m.dropLocked(u, c)
	return u, c
}

// Unbind forgets which upstream call the client id key names (the call
// stays in flight: the client retries it under a new id, Rebind).
func (m *Map[C, D]) Unbind(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byClient, key)
}

// Rebind makes the client id key name upstream call u; logLevel counts
// the call among those that asked for log messages.
func (m *Map[C, D]) Rebind(key string, u int64, logLevel bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byClient[key] = u
	if logLevel {
		m.logWanted++
	}
}

// TakeForStream takes call u out of the pending calls for its result to be
// streamed; Streamed ends that.
func (m *Map[C, D]) TakeForStream(u int64, c C) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(u, c)
	m.streaming++
}

// Streamed says a result taken by TakeForStream has been written.
func (m *Map[C, D]) Streamed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.streaming--
}

// LastCall returns the newest client call in flight for which ok holds
// (-1 and the zero C when none does).
func (m *Map[C, D]) LastCall(ok func(C) bool) (int64, C) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best int64 = -1
	var c C
	for u, k := range m.upPending {
		if k.idCall().Own == nil && u > best && ok(k) {
			best, c = u, k
		}
	}
	return best, c
}

// LogWanters counts the calls in flight that asked for log messages.
func (m *Map[C, D]) LogWanters() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.logWanted
}

// Busy counts the client's calls forwarded and not answered yet, and those
// whose result is being streamed.
func (m *Map[C, D]) Busy() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inFlight() + m.streaming
}

// inFlight counts the client's calls forwarded and not answered yet (m.mu held).
func (m *Map[C, D]) inFlight() int {
	n := 0
	for _, c := range m.upPending {
		if h := c.idCall(); h.Own == nil && !h.Cancelled {
			n++
		}
	}
	return n
}

// FailAll ends every call waiting for the server: the proxy's own get err,
// the client's forwarded ones are returned (their client ids) to be
// answered; the requests to the client for which hook holds (a hook's
// questions) are taken out and returned.
func (m *Map[C, D]) FailAll(err error, hook func(D) bool) (clientIDs [][]byte, asks []D) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d, r := range m.downPending {
		if hook(r) {
			asks = append(asks, r)
			delete(m.downPending, d)
		}
	}
	for u, c := range m.upPending {
		h := c.idCall()
		if h.Own != nil {
			select {
			case h.Own <- Reply{Err: err}:
			default:
			}
		} else if !h.Cancelled {
			clientIDs = append(clientIDs, h.ClientID)
		}
		m.dropLocked(u, c)
	}
	return clientIDs, asks
}
