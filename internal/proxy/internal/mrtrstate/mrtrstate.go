package mrtrstate

import (
	"fmt"
	"sync"
)

// IDs is the id map as the part uses it: D is the proxy's record of a
// request to the client.
type IDs[D any] interface {
	Ask(r D) int64
	TakeDowns(ds []int64) (open []int64, reqs []D)
}

// Ask is one request for input the server made through input_required.
type Ask struct {
	Key, Method string
	Params      []byte
}

// Bridge collects a legacy client's answers to one input_required result
// (responses, waiting and done under State.mu).
type Bridge[C any] struct {
	Call  C      // the call being bridged
	State []byte // its requestState (a JSON string) or nil

	key       string // the call's client id
	responses map[string][]byte
	waiting   map[int64]bool
	done      bool
}

// NewBridge starts the bridge of call c, known to the client as clientID,
// whose result carried requestState state (nil when none).
func NewBridge[C any](c C, clientID, state []byte) *Bridge[C] {
	return &Bridge[C]{Call: c, State: state, key: string(clientID), responses: map[string][]byte{}, waiting: map[int64]bool{}}
}

// State is the era bridge's state of one session.
type State[C, D any] struct {
	ids IDs[D]

	mu        sync.Mutex
	bridges   map[string]*Bridge[C] // legacy client calls collecting input, by client id
	tokens    map[string]int64      // the proxy's requestState tokens -> upstream call
	nextToken int64
}

// New returns an empty state whose requests take their ids in ids.
func New[C, D any](ids IDs[D]) *State[C, D] {
	return &State[C, D]{ids: ids, bridges: map[string]*Bridge[C]{}, tokens: map[string]int64{}}
}

// Collect starts b collecting the client's answers to asks: each becomes a
// request to the client, recorded in the id map as question builds it; it
// returns their ids, in the order of asks.
func (m *State[C, D]) Collect(b *Bridge[C], asks []Ask, question func(Ask) D) []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ds []int64
	for _, a := range asks {
		d := m.ids.Ask(question(a))
		b.waiting[d] = true
		ds = append(ds, d)
	}
	m.bridges[b.key] = b
	return ds
}

// Answer records the client's result for request d of b; it returns how
// many answers b still waits for, and false when b is done already.
func (m *State[C, D]) Answer(b *Bridge[C], d int64, key string, result []byte) (left int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(b.waiting, d)
	if b.done {
		return 0, false
	}
	b.responses[key] = append([]byte(nil), result...)
	return len(b.waiting), true
}

// Refuse ends b after the client answered its request d with an error: its
// other requests are void (taken out of the id map); false when b is done
// already.
func (m *State[C, D]) Refuse(b *Bridge[C], d int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(b.waiting, d)
	if b.done {
		return false
	}
	b.done = true
	delete(m.bridges, b.key)
	m.ids.TakeDowns(keys(b.waiting))
	return true
}

// End ends b and returns the client's answers, by the server's keys, for
// the retry of its call (nothing writes them once b is done).
func (m *State[C, D]) End(b *Bridge[C]) map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	b.done = true
	delete(m.bridges, b.key)
	return b.responses
}

// Cancel ends the bridge of the client's call key (it cancelled the call)
// and returns the ids of its requests to the client, now void; false when
// key collects no input.
func (m *State[C, D]) Cancel(key string) ([]int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.bridges[key]
	if b == nil {
		return nil, false
	}
	b.done = true
	delete(m.bridges, key)
	ds := keys(b.waiting)
	m.ids.TakeDowns(ds)
	return ds, true
}

// RequestKey names a legacy server's request in an inputRequests object.
func (m *State[C, D]) RequestKey() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextToken++
	return fmt.Sprintf("mcpsum-up-%d", m.nextToken)
}

// Keep records token as a requestState token for upstream call u.
func (m *State[C, D]) Keep(token string, u int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens[token] = u
}

// Redeem takes token out and returns its upstream call; false when it is
// not the proxy's.
func (m *State[C, D]) Redeem(token string) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.tokens[token]
	delete(m.tokens, token)
	return u, ok
}

// keys are the keys of a set of ids.
func keys(set map[int64]bool) []int64 {
	ks := make([]int64, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	return ks
}
