package mcpwire

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Transport carries whole JSON-RPC messages between a Client and one server:
// a child's stdio (*Process) or a Streamable HTTP endpoint (*HTTP). The
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

var _ Transport = (*Process)(nil)

// WriteMessage writes msg as one line on the child's stdin.
func (p *Process) WriteMessage(msg []byte) error {
	p.writerOnce.Do(func() { p.writer = NewLineWriter(p.Stdin) })
	return p.writer.Write(msg)
}

// ReadMessage returns the next line of the child's stdout. At the end of the
// stream it returns the child's exit (an *ExitError) when it exited.
func (p *Process) ReadMessage() ([]byte, error) {
	line, err := p.Stdout.Next()
	if err == nil {
		return line, nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		if waitChan(p.done, 2*time.Second) {
			return nil, p.ExitError()
		}
		return nil, fmt.Errorf("server %q closed its stdout but is still running", p.argv0)
	}
	if errors.Is(err, ErrLineTooLong) {
		return nil, fmt.Errorf("server %q: %w", p.argv0, err)
	}
	return nil, fmt.Errorf("read from server %q: %w", p.argv0, err)
}

// Exited is closed once the child has exited (Done).
func (p *Process) Exited() <-chan struct{} { return p.done }

// ExitReason is the child's *ExitError once it exited.
func (p *Process) ExitReason() error {
	if e := p.ExitError(); e != nil {
		return e
	}
	return nil
}

// Label is the server's program as the lock names it.
func (p *Process) Label() string { return p.argv0 }
