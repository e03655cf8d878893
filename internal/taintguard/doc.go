// Package taintguard adapts the taint guard of internal/policy to the hooks of
// internal/proxy (internal/proxy knows no policy; internal/policy knows no proxy): it opens
// the session's taint state, audit log and approval key for an entry with a
// taint policy and turns the guard's verdicts into the proxy's. It prints
// nothing itself: the guard's remarks go to the function the caller hands in.
//
// It imports internal/statefile, internal/termtext, pkg/lockfile,
// internal/policy and internal/proxy of mcpsum, and must not import cmd/.
package taintguard
