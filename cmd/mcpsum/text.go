package main

import (
	"io"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// What mcpsum prints of untrusted text goes through internal/termtext.
var (
	quoteText = termtext.Quote    // server-written text, escaped
	quoteArg  = termtext.ShellArg // a word a user may paste into a shell
	writeJSON = show.WriteJSON    // indented JSON, inert on a terminal
)

// isTerminal sees through the redacting writers of app.
var isTerminal = func(w io.Writer) bool {
	if r, ok := w.(redact.Writer); ok {
		w = r.W
	}
	return cli.IsTerminal(w)
}
