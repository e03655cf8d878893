// Package execpath holds the one rule that turns a locked command's argv[0]
// into the program mcpsum runs, shared by pkg/mcpwire (unsandboxed starts)
// and pkg/sandbox (the program bound into the sandbox), so both run the same
// file:
//
//   - argv[0] holding a slash is a path: absolute as written, relative ones
//     resolved against dir (the server's working directory, which pkg/pin sets
//     to the lockfile's folder), never against mcpsum's own working directory;
//   - a bare name is searched in PATH (the server's, else mcpsum's), in
//     absolute PATH entries only: empty and relative entries (".", "bin") are
//     skipped, so the current directory is never searched.
//
// It is an internal helper: it imports nothing of mcpsum, and must never
// import a pkg/ package or cmd/.
package execpath
