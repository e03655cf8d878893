package idmap

// The requests the proxy sends the client.

// Ask records a request the proxy sends the client and returns its id.
func (m *Map[C, D]) Ask(r D) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextDown++
	m.downPending[m.nextDown] = r
	return m.nextDown
}

// TakeDown takes the request sent to the client under id d out (the zero
// D when none is open).
func (m *Map[C, D]) TakeDown(d int64) D {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.downPending[d]
	delete(m.downPending, d)
	return r
}

// TakeDowns takes the open ones of the requests ds sent to the client out,
// in the order of ds.
func (m *Map[C, D]) TakeDowns(ds []int64) (open []int64, reqs []D) {
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

// TakeDownWhere takes out a request sent to the client for which match
// holds and returns its id (-1 when none is open).
func (m *Map[C, D]) TakeDownWhere(match func(D) bool) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, r := range m.downPending {
		if match(r) {
			delete(m.downPending, k)
			return k
		}
	}
	return -1
}

// AsksOpen counts the requests sent to the client and not answered yet.
func (m *Map[C, D]) AsksOpen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.downPending)
}

// Put records c as sent to the server under id u, leaving the counters
// alone: for the proxy's tests, which feed it a server's answers to calls
// set up so.
func (m *Map[C, D]) Put(u int64, c C) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.upPending[u] = c
}

// Sent counts the calls sent to the server and not answered (for tests).
func (m *Map[C, D]) Sent() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.upPending)
}
