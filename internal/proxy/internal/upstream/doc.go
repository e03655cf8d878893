// Package upstream is the proxy's transport seam: the server as the proxy
// core sees it (Upstream: write a message, read the stream of messages
// back, learn that it ended and why, stop it, read the tail of its
// stderr), whatever carries the messages.
//
// It owns the two transports: Stdio, the locked command's stdin and stdout
// (the process is started by internal/launch; the proxy hands it over), and HTTP,
// a remote server over Streamable HTTP in the locked era through
// internal/mcpwire/mcphttp's Session (sessions, renewal, the GET stream,
// headers, limits, credentials: the one client of the protocol): every
// JSON body or SSE event that comes back becomes one line of a pipe the
// core reads as it reads a server's stdout (a long event streams through,
// never held), and a request the server left unanswered gets an error
// answer of the proxy's own. What the session needs of the proxy (a
// renewed session's surface check, whether a request is the proxy's own,
// a re-authorization) it asks through mcphttp.Hooks.
//
// Locks of HTTP: pipeMu (one message at a time into the pipe), taken
// only by the session's sink calls, never while the session holds a lock.
// Stdio's only lock is its jsonline.Writer's.
//
// Imports: internal/mcpwire and internal/mcpwire/mcphttp,
// internal/proxy/internal/jsonline and internal/ helpers. It must not
// import internal/proxy: the proxy imports it, and reaches back only
// through mcphttp.Hooks.
package upstream
