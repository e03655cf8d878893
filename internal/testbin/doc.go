// Package testbin holds what tests of several packages need to run real
// programs: Build, which builds a Go program (an e2e/servers peer, an SDK's
// example server) once per test binary, and SyncBuffer, a buffer a child's
// output may be copied into while the test reads it.
//
// It is imported from _test.go files only (internal/process, internal/mcpwire,
// e2e), imports nothing of mcpsum, and never prints or exits.
package testbin
