// Package policysyntax is the one definition of the syntax of a sandbox
// policy's paths and network entries. pkg/lockfile checks a lockfile with it
// (so `show` and `verify` refuse what the sandbox would refuse) and
// internal/sandbox parses the same entries with it at start, so the two can never
// disagree. It touches no disk and no network.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package policysyntax
