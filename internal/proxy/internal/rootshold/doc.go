// Package rootshold holds a legacy server's roots/list that the proxy
// keeps for a 2026-07-28 client's next call, under a lock of its own: the
// request's line, its id, and the requestState token the client was asked
// with. It calls out to nothing; the proxy reads the client's calls,
// builds the messages and answers the server (internal/proxy/roots.go).
//
// It imports nothing of mcpsum; it must not import internal/proxy or any of its
// other parts.
package rootshold
