// Package mrtrstate is the state of the proxy's era bridge (MRTR), under a
// lock of its own: the legacy client calls collecting input for a
// 2026-07-28 server's input_required result (a Bridge each: the answers so
// far and the requests still open), and the requestState tokens the proxy
// gave a 2026-07-28 client for a legacy server's requests. It is handed
// the id map (IDs), where the requests it sends the client take their ids;
// the proxy's lock order (internal/proxy/doc.go) puts its lock before the id
// map's. The messages are built by the proxy (mrtr.go).
//
// It imports nothing of mcpsum; it must not import internal/proxy or any of its
// other parts.
package mrtrstate
