// Package idmap is the proxy's id map: every id the proxy allocates on
// either side of a session, the calls sent to the server and not answered
// yet, and the requests sent to the client, under a lock of its own (the
// innermost of the proxy's locks: internal/proxy/doc.go gives the order). It
// holds the cap on a client's calls in flight, mcpspec.MaxCallsInFlight.
//
// The map is generic over the proxy's records: a call embeds Call (what the
// map reads and writes of it), a request to the client is opaque. It calls
// out to nothing while it holds its lock, except the predicates it is
// handed, which must not take a lock.
//
// It imports internal/mcpspec only; it must not import internal/proxy or any of
// its other parts.
package idmap
