// Package hint is an error that carries the next steps a person can take,
// kept out of the error's sentence: the message says what went wrong, each
// hint says what to do about it, and the one who prints the error puts each
// hint on a line of its own (filippo.io/age's errorWithHint is the model):
//
//	mcpsum: server "mem": node exited (exit status 1)
//	mcpsum: hint: its packages are not installed: (cd /src/app && npm ci)
//
// Libraries return hints (Wrap, New); they never print. cmd/mcpsum renders
// them (report.go, and the lines of lock's progress and verify's report).
//
// It imports the standard library only, and nothing of mcpsum, so every
// package may use it.
package hint
