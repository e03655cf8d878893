// Package taintguard adapts the taint guard of pkg/policy to the hooks of
// pkg/proxy (pkg/proxy knows no policy; pkg/policy knows no proxy): it opens
// the session's taint state, audit log and approval key for an entry with a
// taint policy and turns the guard's verdicts into the proxy's. It prints
// nothing itself: the guard's remarks go to the function the caller hands in.
//
// It imports internal/statefile, internal/termtext, pkg/lockfile,
// pkg/policy and pkg/proxy of mcpsum, and must not import cmd/.
package taintguard
