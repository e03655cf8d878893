// Package hookwait holds the proxy's client calls waiting for a hook's
// verdict, under a lock of its own: each call's cancellation by the client
// and the questions its hook asked the client, which are withdrawn with it.
// It is handed the id map (IDs), where those questions take their ids; the
// proxy's lock order (internal/proxy/doc.go) puts its lock before the id map's.
//
// It imports nothing of mcpsum; it must not import internal/proxy or any of its
// other parts.
package hookwait
