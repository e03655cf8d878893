package mcpwire

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

// Stdio is the Transport of a server process (internal/process): one
// message per line on its stdin and stdout.
type Stdio struct {
	p *process.Process
	r *LineReader
	w *LineWriter
}

var _ Transport = (*Stdio)(nil)

// NewStdio speaks to p over its stdio; maxLine is the stdout line limit (0
// means mcpspec.MaxMessage). Stop stops p.
func NewStdio(p *process.Process, maxLine int) *Stdio {
	return &Stdio{p: p, r: NewLineReader(p.Stdout(), maxLine), w: NewLineWriter(p.Stdin)}
}

// Process is the server process.
func (s *Stdio) Process() *process.Process { return s.p }

// WriteMessage writes msg as one line on the child's stdin.
func (s *Stdio) WriteMessage(msg []byte) error { return s.w.Write(msg) }

// ReadMessage returns the next line of the child's stdout. At the end of the
// stream it returns the child's exit (a *process.ExitError) when it exited.
func (s *Stdio) ReadMessage() ([]byte, error) {
	line, err := s.r.Next()
	if err == nil {
		return line, nil
	}
	name := s.p.Name()
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
		if process.WaitChan(s.p.Done(), 2*time.Second) {
			return nil, s.p.ExitError()
		}
		return nil, fmt.Errorf("server %q closed its stdout but is still running", name)
	}
	if errors.Is(err, ErrLineTooLong) {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	return nil, fmt.Errorf("read from server %q: %w", name, err)
}

// Exited is closed once the child has exited and been reaped.
func (s *Stdio) Exited() <-chan struct{} { return s.p.Done() }

// ExitReason is the child's *process.ExitError once it exited.
func (s *Stdio) ExitReason() error {
	if e := s.p.ExitError(); e != nil {
		return e
	}
	return nil
}

// Stop ends the child and its process group (process.Process.Stop).
func (s *Stdio) Stop(grace time.Duration) error { return s.p.Stop(grace) }

// StopTerm is Stop with its own wait after SIGTERM (Client.Close gives a
// server that has not spoken yet SilentStopGrace).
func (s *Stdio) StopTerm(grace, termGrace time.Duration) error {
	return s.p.StopTerm(grace, termGrace)
}

// Label is the server's program as the lock names it.
func (s *Stdio) Label() string { return s.p.Name() }

// StderrTail is what the child last wrote to stderr, escaped.
func (s *Stdio) StderrTail() []string { return s.p.StderrTail() }
