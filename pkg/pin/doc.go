// Package pin runs a server the way mcp.lock says and turns what it answers
// into a lock entry. It is shared by lock, verify and the proxy, so a server
// is started the same way (exact argv, withheld environment, sandbox) whoever
// starts it. Verify (observe → compare → classify) lives here too, as a
// library a CI bot or a test calls without the CLI: it is this package's
// Observe plus lockfile.Compare, and a package of its own would hold one
// function.
//
// It imports internal/netrule, internal/statefile, internal/termtext,
// pkg/lockfile, pkg/mcpwire, pkg/oauth, pkg/review, pkg/sandbox, pkg/sumdb of
// mcpsum, and must not import cmd/ or a package that imports it.
package pin
