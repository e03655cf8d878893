package upstream

import (
	"io"
	"os"
	"sync"
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

// Direct is what an Upstream implements whose messages arrive on
// goroutines of their own (a remote server's POST answers): the core calls
// Direct once, before it reads Messages, with take, which handles one
// whole message (no line break inside; the caller's, not kept) on the
// caller's goroutine, in turn with what the reader of Messages handles,
// instead of the reader's waking up to it; take reports false, having
// handled nothing, for a message over the line limit (write it into
// Messages, whose reader fails the server for it as for any line too
// long). Messages still carries the server's end, and long messages
// streamed as they arrive.
type Direct interface {
	Direct(take func(line []byte) bool)
}

// Stdio is a locked command started by pin, spoken to on its stdin and
// stdout. Its stdin is a bounded queue (stdin.go): writing to it never
// blocks, and a server that does not read what waits for it is stopped.
type Stdio struct {
	*stdinQueue
	proc *process.Process

	mu         sync.Mutex
	overflowed *OverflowError // why mcpsum stopped it, if it did
}

// NewStdio speaks to the started process proc.
func NewStdio(proc *process.Process) *Stdio {
	s := &Stdio{proc: proc}
	s.stdinQueue = newStdinQueue(proc.Stdin, s.stopUnread)
	return s
}

// stopUnread stops a server that left too much unread: at once, SIGTERM
// then SIGKILL a second later. Its stdout then ends, and the proxy fails
// the session with ExitError, which says why.
func (s *Stdio) stopUnread(e *OverflowError) {
	e.Server = s.proc.Name()
	s.mu.Lock()
	s.overflowed = e
	s.mu.Unlock()
	go s.proc.StopTerm(0, time.Second)
}

func (s *Stdio) Exited() <-chan struct{} { return s.proc.Done() }

// Messages is the server's stdout; once mcpsum stopped the server for not
// reading, a read returns the *OverflowError instead of what it wrote.
func (s *Stdio) Messages() io.Reader { return stdout{s} }

type stdout struct{ s *Stdio }

func (r stdout) Read(b []byte) (int, error) {
	if e := r.s.stopped(); e != nil {
		return 0, e
	}
	n, err := r.s.proc.Stdout().Read(b)
	if e := r.s.stopped(); e != nil {
		return 0, e
	}
	return n, err
}

// GrowPipe grows the pipe of the server's stdout (jsonline.GrowPipe).
func (r stdout) GrowPipe(size int) bool {
	f, ok := r.s.proc.Stdout().(*os.File)
	return ok && jsonline.GrowPipe(f, size)
}

func (s *Stdio) stopped() *OverflowError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overflowed
}

func (s *Stdio) StderrTail() []string { return s.proc.StderrTail() }

// ExitError says why the server can no longer answer (nil while it runs):
// its exit, after what mcpsum stopped it for if it did.
func (s *Stdio) ExitError() error {
	var exit error
	if e := s.proc.ExitError(); e != nil {
		exit = e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.overflowed != nil {
		e := *s.overflowed
		e.Exit = exit
		return &e
	}
	return exit
}

// Stop lets what waits for the server be written (within grace), then
// stops it as process.StopTerm does.
func (s *Stdio) Stop(grace, termGrace time.Duration) error {
	s.drain(grace)
	return s.proc.StopTerm(grace, termGrace)
}
