// Package serve is `mcpsum serve`: every server of a lockfile served over
// Streamable HTTP at /servers/NAME/mcp, to clients of both eras, each
// client behind the proxy core (internal/proxy) exactly as `mcpsum proxy`
// serves a client on stdio: this package is the core's second downstream
// (proxy.Downstream), the server side of the protocol whose one client is
// internal/mcpwire/mcphttp (whose protocol facts it shares: the header
// names, a message as one line, the 2026-07-28 header check).
//
// It owns who may call (access.go: the bearer token, Host and Origin, the
// token file), reading and checking each POST before anything reaches a
// core (request.go), the legacy sessions (session.go: one core, and so one
// server process, per session; the GET stream; DELETE; idle ones reaped),
// the pools of cores serving 2026-07-28 requests by client identity
// (modern.go, identity.go), the router that sends each line a core writes
// to the HTTP stream waiting for it (router.go, sse.go), and the replicas
// that forward a session's requests to the replica holding it (replica.go).
// Every guarantee about what reaches a server or a client is the core's.
//
// Locks: Server.mu (sessions and pools) is taken before a router's lock;
// a router's lock is never held while a stream is written; a stream's lock
// guards its HTTP response.
//
// Imports: internal/proxy, internal/taintguard, internal/policy,
// internal/launch, internal/mcpwire/mcphttp, pkg/lockfile and helpers. It
// must not import cmd/ and never prints: the log goes to Config.Stderr.
package serve
