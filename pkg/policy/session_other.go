//go:build !linux

package policy

// ProcessClient is not available without /proc: name the session with
// MCPSUM_SESSION.
func ProcessClient(pid int) (Client, error) { return Client{}, errNoProc }

// Alive cannot tell without /proc; a session is kept (fail closed) until
// taint reset clears it.
func (c Client) Alive() bool { return true }
