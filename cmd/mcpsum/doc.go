// Command mcpsum pins the surface of MCP servers in mcp.lock and checks
// servers against it. See README.md and docs/architecture.md.
//
// It holds the command line only: flags and their environment twins (run.go,
// usage.go), reading and writing the user's terminal and files, rendering
// what the libraries return, and the one mapping of errors to exit codes
// (report.go). What to lock and how to merge it is internal/locker, what an
// import does is internal/importer, a verify report is internal/verify, a review of
// the lock is internal/show and internal/review, the proxy is internal/proxy.
//
// Its product code may import any pkg/ and internal/ package except
// internal/attest (sigstore-go stays in cmd/mcpsum-attest, reached through
// internal/attestproto; only the tests run the helper in-process) and
// internal/sumlog (the log operator's side, cmd/mcpsum-log); nothing imports it.
package main
