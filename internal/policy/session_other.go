//go:build !linux

package policy

import "errors"

// errNoProc is returned where /proc is not available.
var errNoProc = errors.New("this system has no /proc to identify the client process")

// ProcessClient is not available without /proc: name the session with
// MCPSUM_SESSION.
func ProcessClient(pid int) (Client, error) { return Client{}, errNoProc }

// Alive cannot tell without /proc; a session is kept (fail closed) until
// taint reset clears it.
func (c Client) Alive() bool { return true }
