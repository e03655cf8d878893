package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/hookwait"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/mrtrstate"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/rootshold"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/subs"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/tasktable"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/upstream"
)

// Options configure Run.
type Options struct {
	Name     string           // the entry's name in the lockfile
	Lockfile string           // its path, for messages
	Entry    *lockfile.Server // the locked entry (already integrity-checked by lockfile.Load)
	// Pin configures how the server is started (timeout of the handshake and
	// of each list call of a check, line limit, lockfile for the sandbox).
	Pin pin.Options
	// Start, if set, replaces pin.Start (tests). It must start
	// exactly the locked command; cleanup runs after the server stopped.
	Start func() (p *process.Process, cleanup func(), err error)
	// Stderr receives diagnostics (informational drift, the server's stderr,
	// escaped line by line). nil discards them.
	Stderr io.Writer
	// PageSize is the number of items per served list page (0: DefaultPageSize).
	PageSize int
	// Hooks see and steer every forwarded call and its result (nil:
	// forward everything). See Hooks.
	Hooks Hooks
	// StallTimeout bounds how long a server may stop in the middle of a
	// streamed line (0: Pin.Timeout, else 30s); past it the call gets an
	// error and the session fails.
	StallTimeout time.Duration
	// Grace is how long the server gets to exit after its stdin closes, and
	// again after SIGTERM (0: 2s).
	Grace time.Duration
	// Remote says how to reach a remote entry's server (its URL and the
	// headers with their values); required for a remote entry.
	Remote *mcpwire.HTTPSpec
	// Reauth, if set, gives a new Authorization value after a remote
	// server refused refused (HTTP 401): an OAuth token refreshed.
	Reauth func(ctx context.Context, refused string) (string, error)
}

// maxHeld bounds the requests held while a check runs; the client reader
// waits when it is reached.
const maxHeld = 256

type gateState int

const (
	gateChecking    gateState = iota // a check runs: calls are held
	gateOpen                         // calls are forwarded
	gateQuarantined                  // every request gets -32002
	gateFailed                       // the server failed: requests get an error
	gateClosing                      // shutting down
)

// Proxy is one proxy session: the core that owns the two peers (out and
// up), the gate and the client's session under mu, and the parts, each of
// which owns its state under a lock of its own (doc.go gives the order).
type Proxy struct {
	opts Options // Grace, Hooks and Stderr defaulted
	srv  *served // the surface served from the lock
	// voidID is the id that ends a streamed line the proxy had to cut short
	// (a JSON string no client uses; clients drop responses to unknown ids).
	voidID []byte
	out    *jsonline.Writer // to the client

	up    upstream.Upstream // the server; nil until started
	hello *mcpwire.Hello
	// stderrLines escapes the server's stderr into the log.
	stderrLines *jsonline.EscapedLines
	life        lifecycle

	mu     sync.Mutex
	cond   *sync.Cond // signalled when held shrinks or the state changes
	client clientSession
	gate   gate
	ids    *idMap      // its own lock, taken inside mu
	waits  *hookWaits  // calls waiting for a hook's verdict
	subs   *subs.Table // resource subscriptions (internal/subs)
	mrtr   *mrtrState
	roots  *rootshold.Hold
	tasks  *taskTable // the tasks (internal/tasktable)
}

// idMap is the id map (internal/idmap) over the proxy's records of calls
// and of requests to the client.
type idMap = idmap.Map[*call, *downReq]

func newIDMap() *idMap { return idmap.New[*call, *downReq]() }

// hookWaits are the calls waiting for a hook's verdict (internal/hookwait).
type hookWaits = hookwait.Waits[*downReq]

func newHookWaits(ids *idMap) *hookWaits { return hookwait.New[*downReq](ids) }

// taskTable are the session's tasks (internal/tasktable).
type taskTable = tasktable.Table[CallInfo, *serverRequest, *jsonline.Error]

// lifecycle are the session's events (channels closed once, and recheck,
// which a list_changed fills) and the health checks' clock.
type lifecycle struct {
	recheck  chan struct{} // a list_changed asks for a new check
	started  chan struct{} // closed once the server's start has succeeded or failed
	upFailed chan struct{} // closed by fail
	quarDone chan struct{} // closed by quarantine
	// handshook is closed once the server answered its handshake; born is
	// when the session began (health.go).
	handshook   chan struct{}
	born        time.Time
	answering   answering     // the startupHealth calls running (health.go)
	clientKnown chan struct{} // closed once the client's first request gave its clientInfo (health.go)
	// checksStarted and checksDone count the surface checks (p.mu): a
	// renewed remote session's calls wait for a check that began after it.
	checksStarted, checksDone int
}

// Run serves one client on stdin/stdout until the client goes away, ctx is
// cancelled (a signal), or the server fails. It returns nil after a normal
// end, a *QuarantineError when the server was quarantined, and another error
// when the server could not be started, checked, or died (its stderr tail
// included).
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) error {
	p, err := newProxy(stdout, opts)
	if err != nil {
		return err
	}
	clientGone := make(chan struct{})
	go func() {
		defer close(clientGone)
		p.readClient(mcpwire.NewLineReader(stdin, opts.Pin.MaxLine))
	}()
	// The supervisor stops after shutdown (stopSup), not on the signal
	// itself: a signal first marks the session closing, so the server's exit
	// it causes is not reported as a failure.
	supCtx, stopSup := context.WithCancel(context.WithoutCancel(ctx))
	supDone := make(chan struct{})
	go func() {
		defer close(supDone)
		p.supervise(supCtx)
	}()

	var why string
	select {
	case <-ctx.Done():
		why = "mcpsum proxy was interrupted"
	case <-clientGone:
		why = p.finish(ctx)
	case <-p.life.upFailed:
		why = "the server failed"
		p.awaitHealthAnswers()
	}
	p.shutdown(why)
	stopSup()
	<-supDone

	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.gate.quarantine != nil:
		return p.gate.quarantine
	case p.gate.failure != nil:
		return p.gate.failure
	}
	return nil
}

func newProxy(stdout io.Writer, opts Options) (*Proxy, error) {
	if opts.Entry == nil {
		return nil, errors.New("proxy: no locked entry")
	}
	srv, err := newServed(opts.Entry, opts.PageSize)
	if err != nil {
		return nil, fmt.Errorf("server %q in %s: %w", opts.Name, opts.Lockfile, err)
	}
	p := &Proxy{
		opts: opts,
		srv:  srv,
		out:  jsonline.NewWriter(stdout),
		life: lifecycle{
			recheck:     make(chan struct{}, 1),
			started:     make(chan struct{}),
			upFailed:    make(chan struct{}),
			quarDone:    make(chan struct{}),
			handshook:   make(chan struct{}),
			clientKnown: make(chan struct{}),
			born:        time.Now(),
		},
		gate: gate{seenInfo: map[string]bool{}},
		ids:  newIDMap(),
		subs: subs.New(),
	}
	p.waits = newHookWaits(p.ids)
	p.mrtr = mrtrstate.New[*call, *downReq](p.ids)
	p.roots = &rootshold.Hold{}
	p.tasks = tasktable.New[CallInfo, *serverRequest, *jsonline.Error](maxTasks, maxQueuedInputs, p.refuseTaskRequests)
	if p.opts.Stderr == nil {
		p.opts.Stderr = io.Discard
	}
	p.voidID = jsonline.AppendJSON(nil, "mcpsum-void-"+newToken()[len("mcpsum-"):])
	if p.opts.Hooks == nil {
		p.opts.Hooks = noHooks{}
	}
	if p.opts.Grace <= 0 {
		p.opts.Grace = 2 * time.Second
	}
	p.cond = sync.NewCond(&p.mu)
	return p, nil
}

func (p *Proxy) logf(format string, a ...any) {
	fmt.Fprintf(p.opts.Stderr, "mcpsum proxy %q: "+format+"\n", append([]any{p.opts.Name}, a...)...)
}

// shutdown stops the server's process group and answers every request still
// waiting with an error.
func (p *Proxy) shutdown(why string) {
	p.mu.Lock()
	if p.gate.state != gateQuarantined && p.gate.state != gateFailed {
		p.gate.state = gateClosing
	}
	up := p.up
	p.cond.Broadcast()
	p.mu.Unlock()
	termGrace := p.opts.Grace
	select {
	case <-p.life.handshook:
	default:
		termGrace = max(termGrace, mcpwire.SilentStopGrace) // it may be installing (mcpwire.SilentStopGrace)
	}
	if up != nil {
		if err := up.Stop(p.opts.Grace, termGrace); err != nil {
			p.logf("%v", err)
		}
	}
	p.failWaiting(&jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the request was not answered: %s and the server %q was stopped", why, p.opts.Name)})
}

// failWaiting answers every held and in-flight forwarded request with e.
func (p *Proxy) failWaiting(e *jsonline.Error) {
	p.mu.Lock()
	var ids [][]byte
	for _, r := range p.gate.held {
		ids = append(ids, r.id)
	}
	p.gate.held = nil
	forwarded, asks := p.ids.FailAll(e, func(r *downReq) bool { return r.hook != nil })
	ids = append(ids, forwarded...)
	p.cond.Broadcast()
	p.mu.Unlock()
	for _, r := range asks {
		r.hook(nil, &CallError{Code: CodeSessionEnded, Message: e.Message})
	}
	lines := make([][]byte, 0, len(ids))
	for _, id := range ids {
		lines = append(lines, jsonline.ErrorLine(id, e))
	}
	p.writeLines(lines)
}
