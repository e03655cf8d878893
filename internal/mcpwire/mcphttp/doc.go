// Package mcphttp is mcpsum's one client of MCP's Streamable HTTP
// transport, in both eras: the legacy session (Mcp-Session-Id, the GET
// stream, renewal of an expired session, DELETE at the end) and the
// stateless 2026-07-28 POSTs with their MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-* headers; JSON and SSE answers (SSEStream), each
// message capped; 401/403 challenges with a hook to refresh credentials;
// and the pinned HTTP client (NewHTTPClient: only the locked origin, no
// redirect elsewhere, plain http only to this machine, vetted addresses)
// and the sign-in client (NewSignInClient).
//
// A Session knows JSON-RPC only as far as routing needs (which request an
// answer ends, which session initialize began): whether what the server
// sent is a valid message is its user's check, made in the Sink the
// messages go to. It has two users: internal/mcpwire's HTTP transport
// (lock, verify, show: whole messages for a JSON-RPC client) and the
// proxy's upstream (internal/proxy/internal/upstream: messages as lines of
// a pipe, a long one streamed). What each needs of the session beyond the
// wire (a renewed session's check, a refreshed token) it gives as Hooks.
//
// Nothing here prints or exits; everything a server sent is quoted with
// internal/termtext before it reaches an error message. It imports only
// internal/ helpers (jsonscan, mcpspec, netrule, termtext), so
// internal/mcpwire, above it in the same leaf, and the proxy can both use it.
package mcphttp
