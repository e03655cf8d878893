package main

import (
	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// What mcpsum prints of untrusted text goes through internal/termtext.
var (
	quoteText = termtext.Quote    // server-written text, escaped
	quoteArg  = termtext.ShellArg // a word a user may paste into a shell
	writeJSON = show.WriteJSON    // indented JSON, inert on a terminal
)
