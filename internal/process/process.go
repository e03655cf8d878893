package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec says how to start a server.
type Spec struct {
	// Argv is run exactly: Argv[0] is looked up in the absolute entries of the
	// PATH of Env (or, when Env has no PATH, mcpsum's own PATH) unless it
	// contains a slash; a relative path is resolved against Dir. Argv is passed
	// unchanged as the child's argv. See LookPath.
	Argv []string
	// Env is exactly the child's environment, "NAME=value" entries. nil means an
	// empty environment, never mcpsum's own. Build it with Environ.
	Env []string
	// Dir is the working directory ("" = mcpsum's); internal/launch sets it to the
	// lockfile's folder.
	Dir string
	// Name is how messages name the server's program ("" = Argv[0]): the
	// locked command's, when Argv is a wrapper such as the sandbox's re-exec
	// of mcpsum (/proc/self/exe).
	Name       string
	ExtraFiles []*os.File
	// SysProcAttr is merged: mcpsum always puts the child in its own process
	// group (Setpgid, unless the caller asks for Setsid, which makes a new group
	// too) and, on Linux, sets Pdeathsig to SIGKILL unless the caller set one.
	SysProcAttr *syscall.SysProcAttr
	// Stderr, if set, receives a raw copy of everything the child writes to
	// stderr (the proxy copies it to its own stderr). The escaped tail is kept
	// either way.
	Stderr io.Writer
}

// Process is a running server: its stdio, its process group and its exit.
type Process struct {
	// Stdin is the child's stdin; write with a LineWriter. Stop closes it.
	Stdin   io.WriteCloser
	argv0   string
	cmd     *exec.Cmd
	pgid    int
	stdoutR *os.File
	stderrR *os.File

	done       chan struct{} // closed once the child is reaped
	waitErr    error
	stderrDone chan struct{} // closed when the stderr reader has seen EOF
	tail       stderrTail

	stopOnce sync.Once
	stopErr  error
}

// Ready makes, in the background, the check Go's os package makes before
// the first child a process starts (on Linux whether pidfds work: a
// pidfd_open of itself and a child that exits at once, about a millisecond),
// so that the first Start does not wait for it. Call it when a server is
// about to be started (the proxy, while it reads its lock).
func Ready() {
	go func() {
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			self.Release()
		}
	}()
}

// Start starts spec.Argv in its own process group with exactly spec.Env. The
// child is reaped by a goroutine; Done is closed then. Always call Stop.
func Start(spec Spec) (*Process, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, errors.New("start server: empty command")
	}
	env := spec.Env
	if env == nil {
		env = []string{}
	}
	path, err := lookPath(spec.Argv[0], env, spec.Dir)
	if err != nil {
		return nil, err
	}
	name := spec.Name
	if name == "" {
		name = spec.Argv[0]
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start server %q: %w", name, err)
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, fmt.Errorf("start server %q: %w", name, err)
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, fmt.Errorf("start server %q: %w", name, err)
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        slices.Clone(spec.Argv),
		Env:         env,
		Dir:         spec.Dir,
		Stdin:       stdinR,
		Stdout:      stdoutW,
		Stderr:      stderrW,
		ExtraFiles:  spec.ExtraFiles,
		SysProcAttr: procAttr(spec.SysProcAttr),
	}
	waitBefore() // Guard and the signal handlers first (Before)
	err = startGuarded(cmd.Start, func() int { return cmd.Process.Pid }, hasIDMaps(cmd.SysProcAttr))
	closeAll(stdinR, stdoutW, stderrW) // the child holds its own copies
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		return nil, fmt.Errorf("start server %q: %w", name, err)
	}
	p := &Process{
		Stdin:      stdinW,
		argv0:      name,
		cmd:        cmd,
		pgid:       cmd.Process.Pid, // Setpgid(0) and Setsid both make pgid == pid
		stdoutR:    stdoutR,
		stderrR:    stderrR,
		done:       make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go p.readStderr(spec.Stderr)
	go func() {
		p.waitErr = cmd.Wait()
		reaped(cmd.Process.Pid)
		close(p.done)
	}()
	return p, nil
}

// StartKept starts cmd, a child that is no server and must not be ended
// with one: a package install mcpsum runs before a server starts (ending it
// mid-write leaves the package manager's cache broken). cmd is started as
// the caller set it up (no process group or parent-death signal is added),
// and a sweep of servers' orphans (Guard) never ends it. wait reaps it; call
// it once.
func StartKept(cmd *exec.Cmd) (wait func() error, err error) {
	waitBefore()
	if err := startKept(cmd.Start, func() int { return cmd.Process.Pid }); err != nil {
		return nil, err
	}
	return func() error {
		err := cmd.Wait()
		keptDone(cmd.Process.Pid)
		return err
	}, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// lookPath resolves argv0 by LookPath's rule, against mcpsum's working
// directory when dir is "".
func lookPath(argv0 string, env []string, dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("start server %q: working directory: %w", argv0, err)
		}
		dir = wd
	}
	p, err := LookPath(argv0, env, dir)
	if err != nil {
		return "", fmt.Errorf("start server: %w", err)
	}
	return p, nil
}

// Pid is the child's process id; Pgid its process group (the same number).
func (p *Process) Pid() int  { return p.cmd.Process.Pid }
func (p *Process) Pgid() int { return p.pgid }

// Stdout is the child's stdout as an unbuffered stream: internal/mcpwire frames
// it into messages, the proxy streams long lines without holding them whole.
// Read it from one goroutine.
func (p *Process) Stdout() io.Reader { return p.stdoutR }

// Name is how messages name the server's program (Spec.Name, else Argv[0]).
func (p *Process) Name() string { return p.argv0 }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// StderrTail returns the last lines the child wrote to stderr (at most 20),
// each already escaped as by termtext.Quote (and cut to about 300 bytes).
func (p *Process) StderrTail() []string { return p.tail.lines() }

// ExitError describes a server that exited: its exit status and stderr tail.
type ExitError struct {
	Argv0  string
	State  string   // "exit status 1", "signal: killed", …
	Code   int      // exit code; -1 when killed by a signal
	Stderr []string // escaped stderr tail
}

func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q exited (%s)", e.Argv0, e.State)
	if len(e.Stderr) == 0 {
		b.WriteString(" and wrote nothing to stderr")
		return b.String()
	}
	b.WriteString("; last stderr lines:")
	WriteStderrTail(&b, e.Stderr)
	return b.String()
}

// WriteStderrTail writes a server's escaped stderr tail (StderrTail) under
// a message, one indented "| line" each: how every error shows it.
func WriteStderrTail(b *strings.Builder, tail []string) {
	for _, l := range tail {
		b.WriteString("\n    | ")
		b.WriteString(l)
	}
}

// ExitError returns nil while the child runs; after it exited, an *ExitError
// with its status and stderr tail (waiting briefly for the rest of stderr).
func (p *Process) ExitError() *ExitError {
	select {
	case <-p.done:
	default:
		return nil
	}
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond): // a grandchild may still hold stderr
	}
	e := &ExitError{Argv0: p.argv0, Code: -1, Stderr: p.StderrTail()}
	if st := p.cmd.ProcessState; st != nil {
		e.State, e.Code = st.String(), st.ExitCode()
	} else {
		e.State = fmt.Sprint(p.waitErr)
	}
	return e
}

// Stop ends the server and reaps it: close stdin, wait up to grace for it to
// exit, then SIGTERM its process group, wait up to grace again, then SIGKILL
// the group and wait. Members of the group still alive after the child exited
// get the same SIGTERM/SIGKILL treatment. Safe to call more than once and
// concurrently; later calls wait for the first and return its result. It
// returns an error only if live processes remain in the group afterwards.
func (p *Process) Stop(grace time.Duration) error { return p.StopTerm(grace, grace) }

// StopTerm is Stop with its own wait after SIGTERM (termGrace), for a
// process that may be a package manager installing: it rolls back cleanly on
// SIGTERM, given the time, where SIGKILL would leave its cache half-written.
func (p *Process) StopTerm(grace, termGrace time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.stop(grace, termGrace) })
	return p.stopErr
}

func (p *Process) stop(grace, termGrace time.Duration) error {
	p.Stdin.Close()
	if !WaitChan(p.done, grace) {
		p.signalGroup(syscall.SIGTERM)
		if !WaitChan(p.done, termGrace) {
			p.signalGroup(syscall.SIGKILL)
			<-p.done
		}
	}
	var err error
	if GroupAlive(p.pgid) { // leftovers: the child exited, its children did not
		p.signalGroup(syscall.SIGTERM)
		if !waitGroup(p.pgid, grace) {
			p.signalGroup(syscall.SIGKILL)
			if !waitGroup(p.pgid, 2*time.Second) {
				err = fmt.Errorf("stop server %q: process group %d still has live processes after SIGKILL", p.argv0, p.pgid)
			}
		}
	}
	// Descendants that left the group (setsid, double fork) were reparented to
	// mcpsum when it is a subreaper (Guard): end them once no server runs.
	if e := sweepOrphans(grace); e != nil && err == nil {
		err = fmt.Errorf("stop server %q: %w", p.argv0, e)
	}
	WaitChan(p.stderrDone, 500*time.Millisecond)
	p.stdoutR.Close() // unblocks a reader if something outside the group holds the pipe
	p.stderrR.Close()
	return err
}

// WaitChan reports whether c closed within d (d <= 0: already closed). It
// is the one bounded wait on a done channel, for this package and mcpwire.
func WaitChan(c <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}

// waitGroup polls until no live member of the group is left.
func waitGroup(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for GroupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
