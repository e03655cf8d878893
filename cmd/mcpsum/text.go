package main

import (
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// What mcpsum prints of untrusted text goes through internal/termtext.
var (
	quoteText = termtext.Quote    // server-written text, escaped
	quoteArg  = termtext.ShellArg // a word a user may paste into a shell
	writeJSON = show.WriteJSON    // indented JSON, inert on a terminal
)

// note writes a library's note for the user, after the command's name.
func (a *app) note(cmd string) func(string) {
	return func(s string) { fmt.Fprintf(a.stderr, "%s: %s\n", cmd, s) }
}

// text writes a library's text for a command that succeeded.
func (a *app) text(s func() string, err error) error {
	if err == nil {
		_, err = io.WriteString(a.stdout, s())
	}
	return err
}
