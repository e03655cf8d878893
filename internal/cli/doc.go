// Package cli is the plumbing of mcpsum's command line that knows nothing
// of mcpsum: flags that may be given once (Once), list flags (List), the
// help of a command rendered with long --flags and each flag's environment
// twin (Usage), finding a (sub)command by the words typed (Find, Path), and
// the progress report of tasks run in parallel (Progress).
// cmd/mcpsum declares the flags and decides what they mean.
//
// It writes only to the writer it is handed (Usage returns a string),
// imports github.com/peterbourgon/ff/v3/ffcli, golang.org/x/term and the
// standard library, and nothing of mcpsum.
package cli
