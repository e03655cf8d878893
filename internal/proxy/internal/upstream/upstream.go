package upstream

import (
	"io"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// Upstream is the server as the proxy sees it: somewhere to send messages
// and a stream of messages back. The proxy core never touches a process:
// a process on stdio is one upstream (Stdio); a Streamable HTTP endpoint
// is another (HTTP, httpup.go), yielding each JSON body or SSE event as one
// line of messages.
type Upstream interface {
	// WriteLine sends one message made of parts, without copying them.
	WriteLine(parts ...[]byte) error
	// Messages is the server's newline-framed messages, read by one
	// goroutine (the proxy's stream.go keeps memory bounded on long ones).
	Messages() io.Reader
	// Exited is closed when the server can no longer answer (a process
	// exited, a remote session failed); ExitError then says why, with the
	// tail of its stderr.
	Exited() <-chan struct{}
	ExitError() error
	// StderrTail is what the server last wrote to stderr (nil when it has
	// none).
	StderrTail() []string
	// Stop ends the server: grace after its input closed, then SIGTERM,
	// termGrace after that, then SIGKILL of its whole process group (a
	// remote session: DELETE within grace, then every stream closed).
	Stop(grace, termGrace time.Duration) error
}

// Stdio is a locked command started by pin, spoken to on its stdin and
// stdout.
type Stdio struct {
	*jsonline.Writer // its stdin
	proc             *process.Process
}

// NewStdio speaks to the started process proc.
func NewStdio(proc *process.Process) *Stdio {
	return &Stdio{Writer: jsonline.NewWriter(proc.Stdin), proc: proc}
}

func (s *Stdio) Messages() io.Reader     { return s.proc.Stdout() }
func (s *Stdio) Exited() <-chan struct{} { return s.proc.Done() }
func (s *Stdio) ExitError() error        { return s.proc.ExitError() }
func (s *Stdio) StderrTail() []string    { return s.proc.StderrTail() }
func (s *Stdio) Stop(grace, termGrace time.Duration) error {
	return s.proc.StopTerm(grace, termGrace)
}
