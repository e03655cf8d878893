// Package policy holds mcpsum's policy logic that goes beyond the format:
// suggesting a taint policy from a locked server's annotations, and taint
// tracking (I6): the session state shared by a client's proxies (Store), the
// audit log, approvals through the client (signed 2026-07-28 states), and
// the Guard that the proxy's hooks call (wired in cmd/mcpsum; internal/proxy does
// not import this package). It also writes what suggest-policy, taint
// list and taint reset show a person (text.go), to a writer the caller
// hands in.
//
// It imports internal/jsonscan, internal/lookalike, internal/mcpspec,
// internal/process, internal/safeio, internal/statefile, internal/termtext
// and pkg/lockfile of mcpsum, and must not import cmd/ or a package that
// imports it.
package policy
