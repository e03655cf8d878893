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
