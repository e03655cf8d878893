package proxy

import (
	"fmt"
	"sync"
)

// mrtrState is the era bridge's state, under a lock of its own: the legacy
// client calls collecting input for a 2026-07-28 server (bridges, with the
// fields of each bridge), and the requestState tokens the proxy gave a
// 2026-07-28 client for a legacy server's requests. The part is handed the
// id map: the requests it sends the client take their ids there.
type mrtrState struct {
	ids *idMap

	mu        sync.Mutex
	bridges   map[string]*bridge // legacy client calls collecting input, by client id
	tokens    map[string]int64   // the proxy's requestState tokens -> upstream call
	nextToken int64
}

func newMRTRState(ids *idMap) *mrtrState {
	return &mrtrState{ids: ids, bridges: map[string]*bridge{}, tokens: map[string]int64{}}
}

// inputAsk is one request for input the server made through input_required.
type inputAsk struct {
	key, method string
	params      []byte
}

// collect starts b collecting the client's answers to asks: each becomes a
// request to the client (the lines returned).
func (m *mrtrState) collect(b *bridge, asks []inputAsk) [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	var lines [][]byte
	for _, a := range asks {
		d := m.ids.Ask(&downReq{bridge: b, key: a.key, method: a.method})
		b.waiting[d] = true
		lines = append(lines, requestLine(itoa(d), a.method, a.params))
	}
	m.bridges[string(b.c.ClientID)] = b
	return lines
}

// answer records the client's result for request d of b; it returns how
// many answers b still waits for, and false when b is done already.
func (m *mrtrState) answer(b *bridge, d int64, key string, result []byte) (left int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(b.waiting, d)
	if b.done {
		return 0, false
	}
	b.responses[key] = append([]byte(nil), result...)
	return len(b.waiting), true
}

// refuse ends b after the client answered its request d with an error: its
// other requests are void (taken out of the id map); false when b is done
// already.
func (m *mrtrState) refuse(b *bridge, d int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(b.waiting, d)
	if b.done {
		return false
	}
	b.done = true
	delete(m.bridges, string(b.c.ClientID))
	m.ids.TakeDowns(keys(b.waiting))
	return true
}

// retryParams ends b and returns the members its call is retried with:
// inputResponses, and requestState when the server gave one.
func (m *mrtrState) retryParams(b *bridge) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	b.done = true
	delete(m.bridges, string(b.c.ClientID))
	extra := []byte(`"inputResponses":{`)
	i := 0
	for k, v := range b.responses {
		if i > 0 {
			extra = append(extra, ',')
		}
		extra = appendJSON(extra, k)
		extra = append(append(extra, ':'), v...)
		i++
	}
	extra = append(extra, '}')
	if b.state != nil {
		extra = append(append(extra, `,"requestState":`...), b.state...)
	}
	return extra
}

// cancel ends the bridge of the client's call key (it cancelled the call)
// and returns the ids of its requests to the client, now void; false when
// key collects no input.
func (m *mrtrState) cancel(key string) ([]int64, bool) {
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

// requestKey names a legacy server's request in an inputRequests object.
func (m *mrtrState) requestKey() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextToken++
	return fmt.Sprintf("mcpsum-up-%d", m.nextToken)
}

// token returns a new requestState token for upstream call u.
func (m *mrtrState) token(u int64) string {
	t := newToken()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tokens[t] = u
	return t
}

// redeem takes token out and returns its upstream call; false when it is
// not the proxy's.
func (m *mrtrState) redeem(token string) (int64, bool) {
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
