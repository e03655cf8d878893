// Package proxy is `mcpsum proxy`: it sits between an MCP client (on its own
// stdin/stdout) and one locked server, serves the client the locked surface,
// checks the live surface against the lock before any call goes through,
// forwards calls byte for byte (only ids rewritten), bridges the two protocol
// eras, and quarantines a server whose definitions drifted.
//
// Goroutines: one reads the client, one reads the server, one supervises the
// server (start, handshake, checks). There are no message queues: each
// direction writes straight to the other peer under a mutex, so a slow peer
// blocks the reader feeding it (backpressure) and memory stays bounded by the
// messages in flight. Requests that arrive while a check runs are held in a
// bounded list and forwarded in order once it passes.
package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/pin"
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
	Start func() (p *mcpwire.Process, cleanup func(), err error)
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

// Proxy is one proxy session.
type Proxy struct {
	opts  Options
	hooks Hooks
	srv   *served
	// voidID is the id that ends a streamed line the proxy had to cut short
	// (a JSON string no client uses; clients drop responses to unknown ids).
	voidID []byte
	out    *lineWriter // to the client
	log    io.Writer
	grace  time.Duration

	up *lineWriter // to the server; nil until started
	// stderrLines escapes the server's stderr into the log.
	stderrLines *escapedLines
	proc        *mcpwire.Process
	hello       *mcpwire.Hello
	recheck     chan struct{}
	started     chan struct{} // closed once the server's start has succeeded or failed
	upFailed    chan struct{} // closed by fail
	quarDone    chan struct{} // closed by quarantine
	handshook   chan struct{} // closed once the server answered its handshake (health.go)
	born        time.Time     // when the session began
	healthWG    sync.WaitGroup
	clientKnown chan struct{} // closed once the client's first request gave its clientInfo (health.go)

	mu   sync.Mutex
	cond *sync.Cond // signalled when held shrinks or the state changes
	// The client session.
	legacyClient  bool            // the client sent initialize
	clientVersion string          // negotiated legacy version
	clientCaps    json.RawMessage // legacy capabilities as sent
	clientInfo    json.RawMessage
	logLevel      string // from logging/setLevel when the server is modern
	// The gate.
	state gateState
	held  []*request
	// heldDown are server->client messages held while a check runs.
	heldDown      [][]byte
	heldDownBytes int
	downOpen      bool // the check passed: server messages pass while held calls go out
	quarantine    *QuarantineError
	failure       error
	seenInfo      map[string]bool // informational findings already logged
	// Ids. The proxy allocates every id it sends to either side: integers
	// from 1 upwards, one counter per side, so its own requests can never
	// collide with forwarded ones.
	nextUp      int64
	upPending   map[int64]*call  // by the id sent to the server
	streaming   int              // calls whose long result is being streamed (no longer in upPending)
	byClient    map[string]int64 // client request id -> upstream id
	nextDown    int64            // ids of requests sent to the client
	downPending map[int64]*downReq
	waiting     map[string]*hookCall       // client calls waiting for a hook's verdict, by client id
	listens     map[string]map[string]bool // open subscriptions/listen of a modern client -> its resource URIs
	listChanged map[string]bool            // those that asked for resourcesListChanged (listchanged.go)
	upSubs      map[string]bool            // resource URIs subscribed upstream
	legacySubs  map[string]bool            // a legacy client's resources/subscribe to a 2026-07-28 server
	bridges     map[string]*bridge         // legacy client calls collecting input, by client id
	tokens      map[string]int64           // the proxy's requestState tokens -> upstream call
	nextToken   int64
	logWanted   int                           // in-flight modern requests that asked for log messages
	tasks       map[string]CallInfo           // tasks created through this session -> the creating call
	taskOrder   []string                      // their ids, oldest first
	taskInputs  map[string]*taskInput         // legacy tasks whose tasks/result the proxy waits on (taskinput.go)
	crossWaits  map[string]context.CancelFunc // cross-era task requests being answered, by client id (taskops.go)
	// A legacy server's roots/list held for a 2026-07-28 client's next call
	// (roots.go): the line, its id, and the requestState token asked with.
	heldRoots, heldRootsID []byte
	rootsToken             string
	startup                startupState    // calls held for the server's start-up requests (startup.go)
	upClientInfo           json.RawMessage // the client's clientInfo, for the upstream initialize (health.go)
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
	case <-p.upFailed:
		why = "the server failed"
		p.awaitHealthAnswers()
	}
	p.shutdown(why)
	stopSup()
	<-supDone

	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.quarantine != nil:
		return p.quarantine
	case p.failure != nil:
		return p.failure
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
		opts:        opts,
		srv:         srv,
		out:         newLineWriter(stdout),
		log:         opts.Stderr,
		grace:       opts.Grace,
		recheck:     make(chan struct{}, 1),
		started:     make(chan struct{}),
		upFailed:    make(chan struct{}),
		quarDone:    make(chan struct{}),
		handshook:   make(chan struct{}),
		clientKnown: make(chan struct{}),
		born:        time.Now(),
		seenInfo:    map[string]bool{},
		upPending:   map[int64]*call{},
		byClient:    map[string]int64{},
		downPending: map[int64]*downReq{},
		waiting:     map[string]*hookCall{},
		listens:     map[string]map[string]bool{},
		listChanged: map[string]bool{},
		upSubs:      map[string]bool{},
		legacySubs:  map[string]bool{},
		bridges:     map[string]*bridge{},
		tokens:      map[string]int64{},
		tasks:       map[string]CallInfo{},
		taskInputs:  map[string]*taskInput{},
		crossWaits:  map[string]context.CancelFunc{},
	}
	if p.log == nil {
		p.log = io.Discard
	}
	p.voidID = appendJSON(nil, "mcpsum-void-"+newToken()[len("mcpsum-"):])
	p.hooks = opts.Hooks
	if p.hooks == nil {
		p.hooks = noHooks{}
	}
	if p.grace <= 0 {
		p.grace = 2 * time.Second
	}
	p.cond = sync.NewCond(&p.mu)
	return p, nil
}

func (p *Proxy) logf(format string, a ...any) {
	fmt.Fprintf(p.log, "mcpsum proxy %q: "+format+"\n", append([]any{p.opts.Name}, a...)...)
}

func (p *Proxy) forwardedInFlight() int {
	n := 0
	for _, c := range p.upPending {
		if c.own == nil && !c.cancelled {
			n++
		}
	}
	return n
}

// shutdown stops the server's process group and answers every request still
// waiting with an error.
func (p *Proxy) shutdown(why string) {
	p.mu.Lock()
	if p.state != gateQuarantined && p.state != gateFailed {
		p.state = gateClosing
	}
	proc := p.proc
	p.cond.Broadcast()
	p.mu.Unlock()
	termGrace := p.grace
	select {
	case <-p.handshook:
	default:
		termGrace = max(termGrace, mcpwire.SilentStopGrace) // it may be installing (mcpwire.SilentStopGrace)
	}
	if proc != nil {
		if err := proc.StopTerm(p.grace, termGrace); err != nil {
			p.logf("%v", err)
		}
	}
	p.failWaiting(&rpcError{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the request was not answered: %s and the server %q was stopped", why, p.opts.Name)})
}

// failWaiting answers every held and in-flight forwarded request with e.
func (p *Proxy) failWaiting(e *rpcError) {
	p.mu.Lock()
	var ids [][]byte
	for _, r := range p.held {
		ids = append(ids, r.id)
	}
	p.held = nil
	var asks []*downReq
	for d, r := range p.downPending {
		if r.hook != nil {
			asks = append(asks, r)
			delete(p.downPending, d)
		}
	}
	for u, c := range p.upPending {
		if c.own != nil {
			select {
			case c.own <- ownReply{err: e}:
			default:
			}
		} else if !c.cancelled {
			ids = append(ids, c.clientID)
		}
		p.dropCall(u, c)
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	for _, r := range asks {
		r.hook(nil, &CallError{Code: CodeSessionEnded, Message: e.Message})
	}
	lines := make([][]byte, 0, len(ids))
	for _, id := range ids {
		lines = append(lines, errorLine(id, e))
	}
	p.writeLines(lines)
}
