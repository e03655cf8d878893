package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
)

// HTTP is a Client's transport to a remote server: a Streamable HTTP
// session (mcphttp.Session, the one client of the protocol, which the
// proxy's upstream uses too) whose messages wait in an unbuffered hand-off
// for ReadMessage, so each open stream holds at most one message in
// memory. Each message the server sends must be exactly one JSON-RPC
// message (checked with Decode, like a stdio line); anything else ends the
// session. A renewed legacy session must answer initialize exactly as the
// first one did.
type HTTP struct {
	s  *mcphttp.Session
	in chan []byte

	dead chan struct{} // closed when the session ended; err says why
	err  error

	callFailed func(id json.RawMessage, err error) // set by the Client
}

var _ Transport = (*HTTP)(nil)

// DialHTTP prepares a session with the server at spec.URL. Nothing is sent
// until the first message.
func DialHTTP(spec mcphttp.Spec) (*HTTP, error) {
	t := &HTTP{in: make(chan []byte), dead: make(chan struct{})}
	s, err := mcphttp.New(spec, mcphttp.Sink{Message: t.handOff, Unanswered: t.unanswered, Ended: t.ended},
		mcphttp.Hooks{Renewed: t.renewed})
	if err != nil {
		return nil, err
	}
	t.s = s
	return t, nil
}

// Label is the server's URL.
func (t *HTTP) Label() string { return t.s.URL() }

// StderrTail is nil: a remote server has no stderr.
func (t *HTTP) StderrTail() []string { return nil }

// Exited is nil: a remote session ends through ReadMessage's error.
func (t *HTTP) Exited() <-chan struct{} { return nil }

// ExitReason is nil (see Exited).
func (t *HTTP) ExitReason() error { return nil }

// Renewals says how many times an expired session was replaced.
func (t *HTTP) Renewals() int { return t.s.Renewals() }

// WriteMessage sends one message (see mcphttp.Session.Send).
func (t *HTTP) WriteMessage(msg []byte) error { return t.s.Send(msg) }

// ReadMessage returns the next message any of the session's streams carried.
func (t *HTTP) ReadMessage() ([]byte, error) {
	select {
	case m := <-t.in:
		return m, nil
	case <-t.dead:
		select {
		case m := <-t.in:
			return m, nil
		default:
		}
		return nil, t.err
	}
}

// Stop ends the session (a legacy session is DELETEd, bounded by grace).
func (t *HTTP) Stop(grace time.Duration) error {
	t.s.Stop(grace)
	return nil
}

// handOff checks one message and waits for ReadMessage to take it.
func (t *HTTP) handOff(data []byte) error {
	if _, err := Decode(data); err != nil {
		return fmt.Errorf("remote server %s sent something other than one JSON-RPC message in one event or body: %w", t.s.URL(), err)
	}
	select {
	case t.in <- data:
		return nil
	case <-t.dead:
		return ErrClosed
	}
}

// unanswered fails the Client's call id (the session goes on). An HTTP
// error status whose body is a JSON-RPC error (for another id, or none)
// fails it with that error too, so the era probe can read its code.
func (t *HTTP) unanswered(id []byte, err error) {
	var hs *mcphttp.HTTPStatusError
	if errors.As(err, &hs) {
		if rm, derr := Decode(hs.Body); derr == nil && rm.Error != nil {
			err = &refusedCall{HTTPStatusError: hs, rpc: rm.Error}
		}
	}
	if t.callFailed != nil {
		t.callFailed(id, err)
	}
}

// refusedCall is an HTTP error status with a JSON-RPC error in its body:
// errors.As finds both.
type refusedCall struct {
	*mcphttp.HTTPStatusError
	rpc *Error
}

func (e *refusedCall) Error() string {
	return fmt.Sprintf("remote server %s answered HTTP %d to %s: %v", e.URL, e.Status, e.Method, e.rpc)
}

func (e *refusedCall) Unwrap() []error { return []error{e.HTTPStatusError, e.rpc} }

func (t *HTTP) ended(err error) {
	if errors.Is(err, mcphttp.ErrClosed) {
		err = ErrClosed
	}
	t.err = err
	close(t.dead)
}

// renewed refuses a renewed session whose InitializeResult differs from
// the first one: what was read before the renewal would not be the
// surface of the session read after it.
func (t *HTTP) renewed(first, renewed json.RawMessage) (func() error, error) {
	if !bytes.Equal(first, renewed) {
		return nil, hint.Errorf("run the command again", "remote server %s: the session expired and the new session's InitializeResult differs from the first one", t.s.URL())
	}
	return nil, nil
}
