// Package launch starts a server the way mcp.lock says (exact argv, withheld
// environment, sandbox; or the locked URL, signed in) and turns what it
// answers into a lock entry; it also keys entries for the transparency log
// and checks them there. It is shared by lock, verify and the proxy, so a server
// is started the same way (exact argv, withheld environment, sandbox) whoever
// starts it. Verify's report (observe → compare → classify, and its
// renderings) is internal/verify, which imports this package; what lock and
// import do with the entries (which to lock, merging them into the lock) is
// internal/locker. Each, the bounded parallel runner, is shared by locker (lock,
// import) and verify.
//
// It imports internal/netrule, internal/statefile, internal/termtext,
// pkg/lockfile, internal/mcpwire, internal/oauth, internal/sandbox, pkg/sumdb of mcpsum, and
// must not import cmd/ or a package that imports it (internal/locker, internal/proxy,
// internal/show, internal/verify).
package launch
