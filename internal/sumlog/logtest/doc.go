// Package logtest starts the real peers a transparency-log test needs, each
// private to the test and stopped when it ends: an S3-compatible server
// (Versity's S3 gateway serving a temporary folder), a database of its own
// on a MariaDB server (unix socket only; one server per test binary,
// stopped after its tests) and a C2SP tlog-witness (transparency-dev's
// omniwitness) configured for the test's log. The Go peers are built from
// tools/logpeers/go.mod (their own module, so none of their requirements
// enters mcpsum's go.mod) once, into the user's cache folder.
//
// A missing peer skips the test, or fails it under MCPSUM_E2E_REQUIRE=1
// (CI installs MariaDB and builds the Go peers). Import it from _test.go
// files only; it imports no application package, only internal/statefile.
package logtest
