package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/hookwait"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/rootshold"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/subs"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/tasktable"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/upstream"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Options configure Run.
type Options struct {
	Name     string           // the entry's name in the lockfile
	Lockfile string           // its path, for messages
	Entry    *lockfile.Server // the locked entry (already integrity-checked by lockfile.Load)
	// Pin configures how the server is started (timeout of the handshake and
	// of each list call of a check, line limit, lockfile for the sandbox).
	Pin launch.Options
	// Start, if set, replaces launch.Start (tests). It must start
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
	// headers with their values); required for a remote entry. It is asked
	// when the server is started, after the client's handshake arrived, so
	// an error (a header's variable unset, a sign-in spent) fails the
	// client's handshake with its reason and the command that fixes it, as
	// a local server that cannot start does.
	Remote func(ctx context.Context) (mcphttp.Spec, error)
	// Reauth, if set, gives a new Authorization value after a remote
	// server refused refused (HTTP 401): an OAuth token refreshed.
	Reauth func(ctx context.Context, refused, challenge string) (string, error)
	// StepUp, if set, is asked when a remote server refuses a call with
	// 403 insufficient_scope (challenge: its WWW-Authenticate): the error
	// the call is answered with, the session going on; nil ends it.
	StepUp func(challenge string) error
	// TokenPrefix goes after "mcpsum-" in the requestState tokens the
	// proxy issues to a 2026-07-28 client (era bridging, held roots): a
	// client's retry carries one back, and internal/serve routes it to the
	// session that issued it by this prefix. "" for none.
	TokenPrefix string
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
	in     clientIn         // the client's lines take turns (downstream.go)
	srvIn  sync.Mutex       // the server's lines take turns (stream.go)

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
	first    <-chan *started // the local server Serve started before the rest (early.go); supervise takes it
	recheck  chan struct{}   // a list_changed asks for a new check
	started  chan struct{}   // closed once the server's start has succeeded or failed
	upFailed chan struct{}   // closed by fail
	quarDone chan struct{}   // closed by quarantine
	// handshook is closed once the server answered its handshake; born is
	// when the session began (startup.go).
	handshook   chan struct{}
	born        time.Time
	answering   answering     // the startupHealth calls running (startup.go)
	clientKnown chan struct{} // closed once the client's first request gave its clientInfo (startup.go)
	// checksStarted and checksDone count the surface checks (p.mu): a
	// renewed remote session's calls wait for a check that began after it.
	checksStarted, checksDone int
}

func (p *Proxy) logf(format string, a ...any) {
	fmt.Fprintf(p.opts.Stderr, "mcpsum proxy %q: "+format+"\n", append([]any{p.opts.Name}, a...)...)
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

// answerTimeout is --timeout-secs: how long a server may take to answer.
func (p *Proxy) answerTimeout() time.Duration {
	if p.opts.Pin.Timeout > 0 {
		return p.opts.Pin.Timeout
	}
	return 30 * time.Second
}

func (p *Proxy) reply(id, result []byte) { p.out.WriteLine(jsonline.ResultLine(id, result)) }

func (p *Proxy) replyErr(id []byte, e *jsonline.Error) { p.out.WriteLine(jsonline.ErrorLine(id, e)) }

func (p *Proxy) upWriter() upstream.Upstream {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// clientSession is what the client said of itself (guarded by Proxy.mu).
type clientSession struct {
	legacy   bool            // the client sent initialize
	version  string          // negotiated legacy version
	caps     json.RawMessage // legacy capabilities as sent
	info     json.RawMessage
	logLevel string          // from logging/setLevel when the server is modern
	upInfo   json.RawMessage // its clientInfo, for the upstream initialize (startup.go)
}

// gate is the state of the gate between the client's calls and the server
// (guarded by Proxy.mu): calls and server messages held while a check
// runs, and why the session ended, if it did.
type gate struct {
	state gateState
	held  []*request
	// heldDown are server->client messages held while a check runs (gate.go).
	heldDown      []heldMessage
	heldDownBytes int
	downOpen      bool // the check passed: server messages pass while held calls go out
	quarantine    *QuarantineError
	failure       error
	seenInfo      map[string]bool // informational findings already logged
	startup       startupState    // calls held for the server's start-up requests (startup.go)
}

// heldMessage is a server message for the client that the gate holds while
// a check runs, with what becomes of it when the check ended (release:
// deliver tells that it passed; st is the gate's state then).
type heldMessage struct {
	line    []byte
	release func(p *Proxy, line []byte, deliver bool, st gateState)
}

// answering counts the startupHealth calls still running. A WaitGroup
// would do, but its Add must not run while Wait may be waiting on a zero
// count, and a client's request may start one at any time.
type answering struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0 (made by a wait)
}

func (a *answering) add() {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
}

func (a *answering) done() {
	a.mu.Lock()
	a.n--
	if a.n == 0 && a.idle != nil {
		close(a.idle)
		a.idle = nil
	}
	a.mu.Unlock()
}

// wait returns once no startupHealth runs, or after d.
func (a *answering) wait(d time.Duration) {
	a.mu.Lock()
	if a.n == 0 {
		a.mu.Unlock()
		return
	}
	if a.idle == nil {
		a.idle = make(chan struct{})
	}
	idle := a.idle
	a.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

// startupState is the start-up hold (fields guarded by Proxy.mu).
type startupState struct {
	asks     map[int64]bool // ids (to the client) of start-up requests not answered yet
	hold     bool           // calls are held for them
	settling bool           // endStartupHold waits for the server to settle (calls stay held)
	ending   bool           // endStartupHold forwards the held calls
	answered bool           // an answer went to the server
	mark     uint64         // the server's stderr lines when the first answer went (settle)
	opened   bool           // the gate opened once: later requests are not start-up ones
}

func (p *Proxy) clientInfoJSON() json.RawMessage {
	return mustJSON(map[string]string{"name": mcpwire.ClientName, "version": mcpwire.ClientVersion()})
}

// writeLines writes lines to the client, giving up after a while when the
// client does not read (shutdown must not hang on a stuck client).
func (p *Proxy) writeLines(lines [][]byte) {
	if len(lines) == 0 {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, l := range lines {
			if p.out.WriteLine(l) != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}
