// Package testbin holds what tests of several packages need to run real
// programs: Build, which builds a Go program (an e2e/servers peer, an SDK's
// example server) once per test binary (GoBuild: kept up to date in the
// tests' shared cache, so an unchanged program is not linked again); Run and Program, the same into a
// temp folder a package's TestMain keeps for its tests; and SyncBuffer, a
// buffer a child's output may be copied into while the test reads it.
//
// It is imported from _test.go files only (internal/process, internal/mcpwire,
// internal/locker, e2e), imports nothing of mcpsum, and never exits (Run
// returns the exit code; it prints only why it could not make its folder).
package testbin
