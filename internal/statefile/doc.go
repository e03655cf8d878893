// Package statefile holds the file helpers that mcpsum's stateful parts
// share: the state directory, exclusive flock(2) locks, atomic replacement
// of a file, append-only opens that never follow a link (OpenAppend), and a
// size-bounded append-only log. lockfile.Update (mcp.lock), the taint store
// and audit log (internal/policy), the sandbox's egress audit log and
// mcpsum-log's access log all build on it, so a crash, a concurrent writer
// or a planted link is handled the same way everywhere.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package statefile
