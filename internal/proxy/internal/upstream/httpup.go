package upstream

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// HTTP is a remote server spoken to over Streamable HTTP, in the locked
// era, through mcphttp.Session (the one client of the protocol; mcpwire's
// HTTP transport is the other user). Every message that comes back — a
// JSON body, one SSE event of a POST's stream or of the legacy GET stream
// — is written as one line into a pipe that the core reads as it reads a
// server's stdout, one message at a time and never two joined: an event
// holding two messages, or half of one, is refused by the core's checks
// exactly as a stdio line would be. A long event is not held: its data
// streams into the pipe as it arrives, so an 8 MiB result costs no more
// memory than on stdio. A request the server left unanswered gets an
// error answer of the proxy's own.
type HTTP struct {
	s   *mcphttp.Session
	max int

	pr     *io.PipeReader
	pw     *io.PipeWriter
	pipeMu sync.Mutex // one message at a time into the pipe
	take   func(line []byte) bool
}

// smallEvent is the size up to which an event or JSON body is read whole
// (and looked at: is it the answer?); longer ones stream into the pipe.
const smallEvent = 64 << 10

// NewHTTP prepares the session with the remote server spec names (with the
// locked tools in spec.Tools, for the Mcp-Param-* headers).
func NewHTTP(spec mcphttp.Spec, hooks mcphttp.Hooks) (*HTTP, error) {
	pr, pw := io.Pipe()
	u := &HTTP{pr: pr, pw: pw}
	s, err := mcphttp.New(spec, mcphttp.Sink{Message: u.deliver, Small: smallEvent, Long: u.long,
		Unanswered: u.answerError, Ended: u.ended}, hooks)
	if err != nil {
		return nil, err
	}
	u.s, u.max = s, spec.MaxMessage
	if u.max <= 0 {
		u.max = mcpspec.MaxMessage
	}
	return u, nil
}

func (u *HTTP) Messages() io.Reader     { return u.pr }
func (u *HTTP) Exited() <-chan struct{} { return u.s.Done() }
func (u *HTTP) StderrTail() []string    { return nil }
func (u *HTTP) ExitError() error {
	err := u.s.Err()
	if errors.Is(err, mcphttp.ErrClosed) {
		err = fmt.Errorf("remote server %s: %w", u.s.URL(), mcpwire.ErrClosed)
	}
	return u.pipeError(err)
}

// Stop ends the session: DELETE of a legacy session (bounded by grace),
// then every stream is closed and waited for.
func (u *HTTP) Stop(grace, _ time.Duration) error {
	u.s.Stop(grace)
	return nil
}

// WriteLine sends one message (see mcphttp.Session.Send).
func (u *HTTP) WriteLine(parts ...[]byte) error {
	return u.s.Send(jsonline.Concat(parts...))
}

// Direct takes the core's way in for a whole message (see Direct): a
// small message is handed to the core on the goroutine that read it, not
// through the pipe to the core's reader.
func (u *HTTP) Direct(take func(line []byte) bool) {
	u.pipeMu.Lock()
	u.take = take
	u.pipeMu.Unlock()
}

// deliver hands one small message to the core: directly when the core
// took the way in (Direct), else into the pipe as one line. msg is the
// caller's: its line end is appended in place, so the reader gets the
// line in one hand-over. pipeMu keeps it from running inside a long
// message that streams into the pipe.
func (u *HTTP) deliver(msg []byte) error {
	u.pipeMu.Lock()
	defer u.pipeMu.Unlock()
	if u.take != nil && u.take(msg) {
		return nil
	}
	_, err := u.pw.Write(append(msg, '\n'))
	return err
}

// long streams a message too long to hold into the pipe; the pipe is
// held for it until it ended. One cut in the middle closes the pipe with
// the reason, so the core reports it (a message over the limit as a line
// over the limit).
func (u *HTTP) long() (io.Writer, func(error)) {
	u.pipeMu.Lock()
	return u.pw, func(err error) {
		defer u.pipeMu.Unlock()
		if err == nil {
			u.pw.Write(jsonline.Newline)
			return
		}
		u.pw.CloseWithError(u.pipeError(err))
	}
}

// ended closes the pipe when the session ended: the core reads its end,
// and ExitError says why (a message over the limit is reported as a line
// over the limit, as on stdio).
func (u *HTTP) ended(err error) {
	if errors.Is(err, mcphttp.ErrTooLarge) {
		u.pw.CloseWithError(u.pipeError(err))
		return
	}
	u.pw.Close()
}

// pipeError is how a broken message reaches the core's reader.
func (u *HTTP) pipeError(err error) error {
	if errors.Is(err, mcphttp.ErrTooLarge) {
		return fmt.Errorf("remote server %s: %w", u.s.URL(), &mcpwire.LineTooLongError{Max: u.max})
	}
	return err
}

// answerError answers request id with a JSON-RPC error of the proxy's own
// (the core drops it when the real answer came first).
func (u *HTTP) answerError(id []byte, err error) {
	u.deliver(jsonline.ErrorLine(id, &jsonline.Error{Code: -32603, Message: "mcpsum: " + hint.Lines(err, "")})) // the next step on a line of its own
}
