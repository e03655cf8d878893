package proxy

import (
	"io"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
)

// upstream is the server as the proxy sees it: somewhere to send messages
// and a stream of messages back. The proxy core never touches a process:
// a process on stdio is one upstream (stdioUpstream); a Streamable HTTP
// endpoint is another (httpUpstream, httpup.go), yielding each JSON body
// or SSE event as one line of messages.
type upstream interface {
	// WriteLine sends one message made of parts, without copying them.
	WriteLine(parts ...[]byte) error
	// messages is the server's newline-framed messages, read by one
	// goroutine (stream.go keeps memory bounded on long ones).
	messages() io.Reader
	// exited is closed when the server can no longer answer (a process
	// exited, a remote session failed); exitError then says why, with the
	// tail of its stderr.
	exited() <-chan struct{}
	exitError() error
	// stderrTail is what the server last wrote to stderr (nil when it has
	// none).
	stderrTail() []string
	// stop ends the server: grace after its input closed, then SIGTERM,
	// termGrace after that, then SIGKILL of its whole process group (a
	// remote session: DELETE within grace, then every stream closed).
	stop(grace, termGrace time.Duration) error
}

// stdioUpstream is a locked command started by pin, spoken to on its
// stdin and stdout.
type stdioUpstream struct {
	*jsonline.Writer // its stdin
	proc             *process.Process
}

func newStdioUpstream(proc *process.Process) *stdioUpstream {
	return &stdioUpstream{Writer: jsonline.NewWriter(proc.Stdin), proc: proc}
}

func (s *stdioUpstream) messages() io.Reader     { return s.proc.Stdout() }
func (s *stdioUpstream) exited() <-chan struct{} { return s.proc.Done() }
func (s *stdioUpstream) exitError() error        { return s.proc.ExitError() }
func (s *stdioUpstream) stderrTail() []string    { return s.proc.StderrTail() }
func (s *stdioUpstream) stop(grace, termGrace time.Duration) error {
	return s.proc.StopTerm(grace, termGrace)
}
