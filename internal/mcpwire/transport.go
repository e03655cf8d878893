package mcpwire

import "time"

// Transport carries whole JSON-RPC messages between a Client and one server:
// a child's stdio (*Stdio) or a Streamable HTTP endpoint (*HTTP). The
// Client, the era probe, the handshake and ListAll work the same over either.
type Transport interface {
	// WriteMessage sends one message (compact JSON). It may be called from
	// several goroutines at once.
	WriteMessage(msg []byte) error
	// ReadMessage returns the next message from the server; only the
	// Client's reader calls it. An error ends the session and says why.
	ReadMessage() ([]byte, error)
	// Exited is closed when the server can no longer answer (a child
	// exited); nil when the transport has no such event.
	Exited() <-chan struct{}
	// ExitReason says why Exited fired (nil before).
	ExitReason() error
	// Stop ends the session and releases everything it holds.
	Stop(grace time.Duration) error
	// Label names the server in messages: the program or the URL.
	Label() string
	// StderrTail is what the server last wrote to stderr (nil over HTTP).
	StderrTail() []string
}
