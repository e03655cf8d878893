package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/policy"
	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// entry is one locked server as served: what every core of it is started
// with.
type entry struct {
	name   string
	lock   *lockfile.Server
	remote *mcphttp.Spec // a remote entry's URL and credentials
	reauth func(ctx context.Context, refused, challenge string) (string, error)
	stepUp func(challenge string) error // a 403 insufficient_scope: the re-lock that steps up
	params mcphttp.ParamHeaders         // the locked tools' Mcp-Param-* headers
	guard  bool                         // it has a taint policy
}

func (s *Server) newEntry(ctx context.Context, name string, e *lockfile.Server) (*entry, error) {
	en := &entry{name: name, lock: e, params: mcphttp.LockedParamHeaders(e.Tools), guard: taintguard.Guarded(e)}
	if e.Remote() {
		spec, err := launch.RemoteSpec(ctx, name, e, s.cfg.Pin)
		if err != nil {
			return nil, err
		}
		pin := s.cfg.Pin
		en.remote = &spec
		en.reauth = func(ctx context.Context, refused, challenge string) (string, error) {
			return launch.RefreshBearer(ctx, name, e, pin, refused, challenge)
		}
		en.stepUp = func(challenge string) error { return launch.StepUp(name, e, pin, challenge) }
	}
	if en.guard && s.cfg.State == nil {
		return nil, fmt.Errorf("server %s has a taint policy and serve was given no taint state", termtext.ShellArg(name))
	}
	return en, nil
}

// core is one proxy core (internal/proxy.Serve) behind this package's
// downstream: the client's lines go in on the HTTP handlers' goroutines
// (proxy.Direct; the pipe carries only the client's end, and a line over
// the core's limit); the core's lines come out through a router to the
// HTTP streams waiting for them. A legacy session has one core; a 2026-07-28 pool has
// one or more. Each core starts its own upstream: one server process, or
// one session with a remote server.
type core struct {
	label  string
	prefix string // its requestState tokens begin with this
	pr     *io.PipeReader
	pw     *io.PipeWriter
	router *router
	done   chan struct{} // closed when the core ended
	err    error         // why, once done
	last   atomic.Int64  // unix nanoseconds of the last request
	// take hands the core a line on the caller's goroutine (proxy.Direct);
	// set before ready is closed.
	take   func(line []byte) error
	ready  chan struct{} // closed once take is set
	cancel context.CancelFunc
}

// errEnded is what writing to a core that ended gets.
var errEnded = errors.New("the session ended")

// startCore starts a core for e serving the client identity id.
func (s *Server) startCore(e *entry, id identity, legacy bool, label string) *core {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	tp := s.cfg.Replicas.tokenPrefix(s.coreN.Add(1))
	c := &core{label: label, prefix: "mcpsum-" + tp, pr: pr, pw: pw, router: newRouter(legacy), done: make(chan struct{}), ready: make(chan struct{}), cancel: cancel}
	c.touch()
	warn := func(msg string) { s.logf("%s: %s", label, msg) }
	var hooks proxy.Hooks
	if e.guard {
		hooks = taintguard.ForSession(e.name, e.lock, s.cfg.Approval, policy.Session{ID: id.taint, Named: true}, s.cfg.State, warn)
	}
	opts := proxy.Options{
		Name:        e.name,
		Lockfile:    s.cfg.Lockfile,
		Entry:       e.lock,
		Pin:         s.cfg.Pin,
		Stderr:      &prefixed{s: s, prefix: label},
		Hooks:       hooks,
		Remote:      e.remoteSpec(),
		Reauth:      e.reauth,
		StepUp:      e.stepUp,
		TokenPrefix: tp,
	}
	go func() {
		err := proxy.Serve(ctx, c, opts)
		c.err = err
		pr.CloseWithError(errEnded)
		var q *proxy.QuarantineError
		switch {
		case errors.As(err, &q):
			s.logf("%s: ended (the server was quarantined)", label)
		case err != nil:
			s.logf("%s: ended: %v", label, err)
		}
		for _, st := range c.router.streams() {
			st.answeredNow()
		}
		cancel()
		close(c.done)
	}()
	return c
}

func (c *core) Messages() io.Reader { return c.pr }
func (c *core) Out() io.Writer      { return c.router }

// Direct is the core's way in for each line (proxy.Direct): the HTTP
// handler hands its message to the core on its own goroutine, instead of
// through the pipe to the core's reader (one wake-up fewer per message).
func (c *core) Direct(take func(line []byte) error) {
	c.take = take
	close(c.ready)
}

// send hands one line of the client (no line break inside) to the core,
// and waits until the core took it.
func (c *core) send(line []byte) error {
	c.touch()
	if c.router.gone.Load() {
		return errEnded // the client ended its input (end)
	}
	select {
	case <-c.ready:
	case <-c.done:
		return errEnded
	}
	err := c.take(line)
	if err == nil {
		return nil
	}
	if !errors.Is(err, proxy.ErrInputEnded) {
		// a line over the core's limit: through the pipe, whose reader
		// ends the session as a line too long ends any
		if _, err := c.pw.Write(append(line, '\n')); err == nil {
			return nil
		}
	}
	return errEnded
}

// end is the client's end of input (DELETE, or idle): the core answers
// what it accepted, then stops its server.
func (c *core) end() {
	c.router.gone.Store(true)
	c.pw.Close()
}

// ended reports whether the core ended.
func (c *core) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *core) touch() { c.last.Store(time.Now().UnixNano()) }

// idleSince is how long the core has had no request in flight and none
// came (0 while one waits).
func (c *core) idleSince(now time.Time) time.Duration {
	if c.router.waiting() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, c.last.Load()))
}

// prefixed writes a core's diagnostics to the log, each line after the
// core's label.
type prefixed struct {
	s      *Server
	prefix string
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.s.logMu.Lock()
	defer p.s.logMu.Unlock()
	fmt.Fprintf(p.s.cfg.Stderr, "mcpsum serve: %s: %s", p.prefix, b)
	return len(b), nil
}

// remoteSpec is the proxy's way to a remote entry: the spec read when the
// server was prepared (serve reads credentials once, at New); nil for a
// local entry.
func (e *entry) remoteSpec() func(context.Context) (mcphttp.Spec, error) {
	if e.remote == nil {
		return nil
	}
	spec := *e.remote
	return func(context.Context) (mcphttp.Spec, error) { return spec, nil }
}
