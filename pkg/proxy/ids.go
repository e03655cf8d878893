package proxy

// idMap are the ids the proxy allocates (guarded by Proxy.mu). The proxy
// allocates every id it sends to either side: integers from 1 upwards, one
// counter per side, so its own requests can never collide with forwarded
// ones.
type idMap struct {
	nextUp      int64
	upPending   map[int64]*call  // by the id sent to the server
	byClient    map[string]int64 // client request id -> upstream id
	nextDown    int64            // ids of requests sent to the client
	downPending map[int64]*downReq
	logWanted   int // in-flight modern requests that asked for log messages
	streaming   int // calls whose long result is being streamed (no longer in upPending)
}

func newIDMap() idMap {
	return idMap{upPending: map[int64]*call{}, byClient: map[string]int64{}, downPending: map[int64]*downReq{}}
}

// own records one of the proxy's own requests to the server and returns
// its id.
func (m *idMap) own(c *call) int64 {
	m.nextUp++
	m.upPending[m.nextUp] = c
	return m.nextUp
}

// forward records a client's call forwarded to the server and returns the
// id the server sees.
func (m *idMap) forward(c *call) int64 {
	u := m.own(c)
	m.byClient[string(c.clientID)] = u
	if c.logLevel {
		m.logWanted++
	}
	return u
}

// ask records a request the proxy sends the client and returns its id.
func (m *idMap) ask(r *downReq) int64 {
	m.nextDown++
	m.downPending[m.nextDown] = r
	return m.nextDown
}

// drop forgets a pending call.
func (m *idMap) drop(u int64, c *call) {
	if c == nil {
		return
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

// inFlight counts the client's calls forwarded and not answered yet.
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
func (m *idMap) failAll(e *rpcError) (clientIDs [][]byte, asks []*downReq) {
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
		m.drop(u, c)
	}
	return clientIDs, asks
}
