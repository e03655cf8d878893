// Package termtext renders untrusted text (what a server, a client
// configuration or a cloned repository wrote) for a terminal, an error
// message, a review or a shell command line: escaped so that it cannot move
// the cursor, recolour the terminal, reorder text or hide characters, and cut
// to a size. It is mcpsum's one quoting primitive; other packages call it
// instead of fmt's %q or a copy of their own.
//
// It imports only the standard library and nothing from mcpsum.
package termtext
