package proxy

import (
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
)

// idMap are the ids the proxy allocates, under a lock of their own (the
// innermost of the proxy's locks: see doc.go). The proxy allocates every id
// it sends to either side: integers from 1 upwards, one counter per side,
// so its own requests can never collide with forwarded ones. At most
// mcpspec.MaxCallsInFlight of the client's calls are forwarded and
// unanswered at once: forward refuses the next.
type idMap struct {
	mu          sync.Mutex
	nextUp      int64
	upPending   map[int64]*call  // by the id sent to the server
	byClient    map[string]int64 // client request id -> upstream id
	calls       int              // the client's calls in upPending (the cap counts them)
	nextDown    int64            // ids of requests sent to the client
	downPending map[int64]*downReq
	logWanted   int // in-flight modern requests that asked for log messages
	streaming   int // calls whose long result is being streamed (no longer in upPending)
}

func newIDMap() *idMap {
	return &idMap{upPending: map[int64]*call{}, byClient: map[string]int64{}, downPending: map[int64]*downReq{}}
}

// own records one of the proxy's own requests to the server and returns
// its id.
func (m *idMap) own(c *call) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ownLocked(c)
}

func (m *idMap) ownLocked(c *call) int64 {
	m.nextUp++
	m.upPending[m.nextUp] = c
	return m.nextUp
}

// forward records a client's call forwarded to the server and returns the
// id the server sees; false when mcpspec.MaxCallsInFlight calls are in
// flight already (nothing is recorded).
func (m *idMap) forward(c *call) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls >= mcpspec.MaxCallsInFlight {
		return 0, false
	}
	u := m.ownLocked(c)
	m.calls++
	m.byClient[string(c.clientID)] = u
	if c.logLevel {
		m.logWanted++
	}
	return u, true
}

// ask records a request the proxy sends the client and returns its id.
func (m *idMap) ask(r *downReq) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextDown++
	m.downPending[m.nextDown] = r
	return m.nextDown
}

// pending is the call sent to the server under id u (nil when none).
func (m *idMap) pending(u int64) *call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.upPending[u]
}

// dropOwn forgets one of the proxy's own requests.
func (m *idMap) dropOwn(u int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.upPending, u)
}

// drop forgets a pending call.
func (m *idMap) drop(u int64, c *call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(u, c)
}

func (m *idMap) dropLocked(u int64, c *call) {
	if c == nil {
		return
	}
	if c.own == nil && m.upPending[u] == c {
		m.calls--
	}
	delete(m.upPending, u)
	if c.own == nil {
		if m.byClient[string(c.clientID)] == u {
			delete(m.byClient, string(c.clientID))
		}
		if c.logLevel {
			m.logWanted--
		}
		c.cancelled = true
	}
}

// dropClient forgets the client's call with id key and returns it with
// the id the server knows it by (nil when none is in flight).
func (m *idMap) dropClient(key string) (int64, *call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.byClient[key]
	if !ok {
		return 0, nil
	}
	c := m.upPending[u]
	m.dropLocked(u, c)
	return u, c
}

// unbind forgets which upstream call the client id key names (the call
// stays in flight: the client retries it under a new id, rebind).
func (m *idMap) unbind(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byClient, key)
}

// rebind makes the client id key name upstream call u; logLevel counts
// the call among those that asked for log messages.
func (m *idMap) rebind(key string, u int64, logLevel bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byClient[key] = u
	if logLevel {
		m.logWanted++
	}
}

// takeForStream takes call u out of upPending for its result to be
// streamed; streamed ends that.
func (m *idMap) takeForStream(u int64, c *call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(u, c)
	m.streaming++
}

func (m *idMap) streamed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.streaming--
}

// lastCall returns the newest client call in flight for which ok holds
// (-1 and nil when none does).
func (m *idMap) lastCall(ok func(*call) bool) (int64, *call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best int64 = -1
	var c *call
	for u, k := range m.upPending {
		if k.own == nil && u > best && ok(k) {
			best, c = u, k
		}
	}
	return best, c
}

// logWanters counts the calls in flight that asked for log messages.
func (m *idMap) logWanters() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.logWanted
}

// busy counts the client's calls forwarded and not answered yet, and those
// whose result is being streamed.
func (m *idMap) busy() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inFlight() + m.streaming
}

// inFlight counts the client's calls forwarded and not answered yet (m.mu held).
func (m *idMap) inFlight() int {
	n := 0
	for _, c := range m.upPending {
		if c.own == nil && !c.cancelled {
			n++
		}
	}
	return n
}

// failAll ends every call waiting for the server: the proxy's own get e,
// the client's forwarded ones are returned (their client ids) to be
// answered; the hooks' questions to the client are taken out and returned.
func (m *idMap) failAll(e *jsonline.Error) (clientIDs [][]byte, asks []*downReq) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d, r := range m.downPending {
		if r.hook != nil {
			asks = append(asks, r)
			delete(m.downPending, d)
		}
	}
	for u, c := range m.upPending {
		if c.own != nil {
			select {
			case c.own <- ownReply{err: e}:
			default:
			}
		} else if !c.cancelled {
			clientIDs = append(clientIDs, c.clientID)
		}
		m.dropLocked(u, c)
	}
	return clientIDs, asks
}

// takeDown takes the request sent to the client under id d out (nil when
// none is open).
func (m *idMap) takeDown(d int64) *downReq {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.downPending[d]
	delete(m.downPending, d)
	return r
}

// takeDowns takes the open ones of the requests ds sent to the client out,
// in the order of ds.
func (m *idMap) takeDowns(ds []int64) (open []int64, reqs []*downReq) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range ds {
		if r, ok := m.downPending[d]; ok {
			delete(m.downPending, d)
			open, reqs = append(open, d), append(reqs, r)
		}
	}
	return open, reqs
}

// takeDownFor takes out the request sent to the client on behalf of the
// server's request upID (-1 when none is open).
func (m *idMap) takeDownFor(upID []byte) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, r := range m.downPending {
		if r.upID != nil && string(r.upID) == string(upID) {
			delete(m.downPending, k)
			return k
		}
	}
	return -1
}

// asksOpen counts the requests sent to the client and not answered yet.
func (m *idMap) asksOpen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.downPending)
}

// keys are the keys of a set of ids.
func keys(set map[int64]bool) []int64 {
	ks := make([]int64, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	return ks
}
