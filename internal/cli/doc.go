// Package cli is the flag plumbing of mcpsum's command line that knows
// nothing of mcpsum: flags that may be given once (Once), list flags
// (List), the help of a command rendered with long --flags and each flag's
// environment twin (Usage), and finding a (sub)command by the words typed
// (Find, Path). cmd/mcpsum declares the flags and decides what they mean.
//
// It prints nothing itself (Usage returns a string), imports
// github.com/peterbourgon/ff/v3/ffcli and the standard library, and nothing
// of mcpsum.
package cli
