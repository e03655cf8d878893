// Package upstream is the proxy's transport seam: the server as the proxy
// core sees it (Upstream: write a message, read the stream of messages
// back, learn that it ended and why, stop it, read the tail of its
// stderr), whatever carries the messages.
//
// It owns the two transports: Stdio, the locked command's stdin and stdout
// (the process is started by internal/launch; the proxy hands it over), and HTTP,
// a remote server over Streamable HTTP in the locked era: each message
// becomes a POST with the session's and the 2026-07-28 headers (the
// Mcp-Param-* headers from the locked tools), every JSON body or SSE event
// that comes back becomes one line of a pipe the core reads as it reads a
// server's stdout (a long event streams through, never held), a legacy
// session's GET stream is kept open and an expired session is renewed.
// What the transport needs of the proxy (a renewed session's surface
// check, whether a request is the proxy's own, a re-authorization) it asks
// through Hooks.
//
// Locks of HTTP: renewMu (one renewal at a time) and authMu (one
// re-authorization at a time) are held across the requests and the hook
// call of what they serialize, and are taken before mu; mu (the session
// state) and pipeMu (one message at a time into the pipe) are never held
// together, nor across a request or a hook. Stdio's only lock is its
// jsonline.Writer's.
//
// Imports: internal/mcpwire (the HTTP client, SSE and headers of the MCP
// wire), internal/proxy/internal/jsonline and internal/ helpers. It must not
// import internal/proxy: the proxy imports it, and reaches back only through
// Hooks.
package upstream
