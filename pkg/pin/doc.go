// Package pin runs a server the way mcp.lock says and turns what it answers
// into a lock entry. It is shared by lock, verify and the proxy, so a server
// is started the same way (exact argv, withheld environment, sandbox) whoever
// starts it. Verify's report (observe → compare → classify, and its
// renderings) is pkg/verify, which imports this package; what lock and
// import do with the entries (which to lock, merging them into the lock) is
// pkg/locker. Each, the bounded parallel runner, is shared by locker (lock,
// import) and verify.
//
// It imports internal/netrule, internal/statefile, internal/termtext,
// pkg/lockfile, pkg/mcpwire, pkg/oauth, pkg/sandbox, pkg/sumdb of mcpsum, and
// must not import cmd/ or a package that imports it (pkg/locker, pkg/proxy,
// pkg/show, pkg/verify).
package pin
