// Package statefile holds the file helpers that mcpsum's stateful parts
// share: the state directory, exclusive flock(2) locks, atomic replacement
// of a file, and a size-bounded append-only log. lockfile.Update (mcp.lock)
// and the taint store (pkg/policy) both build on it, so a crash or a
// concurrent writer is handled the same way everywhere.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package statefile
