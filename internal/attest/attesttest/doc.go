// Package attesttest runs an in-process, offline Sigstore (Fulcio, Rekor v1
// and an RFC 3161 TSA over loopback HTTP, sharing one virtual root of trust)
// and writes signing fixtures, for tests of internal/attest and of the mcpsum CLI.
// Everything is generated at test time, so nothing in testdata expires.
// Import it from _test.go files only.
//
// It imports internal/attest; only tests import it.
package attesttest
