package proxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/hookwait"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
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

// request is a client request the proxy forwards to the server.
type request struct {
	line     []byte // the original bytes, owned
	env      jsonline.Envelope
	id       []byte // the client's id (points into line)
	method   string
	modern   bool          // it carried 2026-07-28 _meta
	meta     jsonline.Span // params._meta
	logLevel bool          // modern: it asked for log messages
	info     CallInfo
	task     taskMode // a tools/call creating a task across eras
	// resultInfo, when set, is what the result hooks see instead of info
	// (a task's result: the call that created the task).
	resultInfo *CallInfo
}

// call is a request sent to the server that awaits its response.
type call struct {
	idmap.Call                  // the client's id, or the channel of the proxy's own request
	method     string           //
	modern     bool             // the client sent it in the 2026-07-28 era
	req        *request         // kept when the result may need era bridging
	upReq      *serverRequest   // a legacy server's request waiting for the client's retry
	queue      []*serverRequest // more of them
	parked     []byte           // the final response, when it came before the retry
	rounds     int              // input_required rounds bridged so far
	info       CallInfo         // what the hooks see
	caps       []byte           // a 2026-07-28 call's declared client capabilities (its _meta's)
	task       taskMode         // a tools/call creating a task across eras
}

func (p *Proxy) reply(id, result []byte) { p.out.WriteLine(jsonline.ResultLine(id, result)) }

func (p *Proxy) replyErr(id []byte, e *jsonline.Error) { p.out.WriteLine(jsonline.ErrorLine(id, e)) }

func invalidParams(format string, a ...any) *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeInvalidParams, Message: "mcpsum: " + fmt.Sprintf(format, a...)}
}

// overCap is the error of a call over the cap on calls in flight.
func overCap() *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the client has %d calls in flight to the server, the proxy's cap (MaxCallsInFlight); this call was not forwarded: retry it once some are answered", mcpspec.MaxCallsInFlight)}
}

func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func parseID(id []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return n, err == nil
}

// withoutMember returns the object at sp without member name.
func withoutMember(line []byte, sp jsonline.Span, name string) []byte {
	out := []byte{'{'}
	n := 0
	jsonscan.Members(line[:sp.End], sp.Start, func(key string, ks, _, ve int) error {
		if key == name {
			return nil
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, line[ks:ve]...)
		n++
		return nil
	})
	return append(out, '}')
}

// hasClientCap reports whether a 2026-07-28 request declared capability key.
func hasClientCap(r *request, key string) bool {
	mf, _, _ := jsonline.Fields(r.line, r.meta, mcpspec.MetaClientCapabilities)
	cf, ok, _ := jsonline.Fields(r.line, mf[0], key)
	return ok && cf[0].OK() && !bytes.Equal(cf[0].Of(r.line), []byte("null"))
}

func (p *Proxy) upWriter() upstream.Upstream {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// errStop ends a jsonscan walk early.
var errStop = errors.New("stop")

// downReq is a request the proxy sent to the client.
type downReq struct {
	upID   []byte // a legacy server's request id: the answer is forwarded
	method string
	bridge *bridge // or: part of an input_required being bridged
	key    string
	hook   func(json.RawMessage, *CallError) // or: a hook's AskClient
}

// serverRequest is a legacy server's request waiting for a modern client's retry.
type serverRequest struct {
	upID, params []byte
	method, key  string
}

var capOf = map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}

func newToken() string {
	var r [16]byte
	rand.Read(r[:])
	return "mcpsum-" + hex.EncodeToString(r[:])
}

// withParams is r with its params object replaced (a hook's Verdict.Params).
func (r *request) withParams(params []byte) (*request, error) {
	if !json.Valid(params) {
		return nil, errors.New("not valid JSON")
	}
	line := make([]byte, 0, len(r.line)-len(r.env.Params.Of(r.line))+len(params))
	line = append(line, r.line[:r.env.Params.Start]...)
	line = append(line, params...)
	line = append(line, r.line[r.env.Params.End:]...)
	env, id, err := jsonline.ScanEnvelope(line)
	if err != nil {
		return nil, err
	}
	pf, isObj, err := jsonline.Fields(line, env.Params, "_meta")
	if err != nil || !isObj {
		return nil, errors.New("params must be a JSON object")
	}
	nr := *r
	nr.line, nr.env, nr.id, nr.meta = line, env, id, pf[0]
	return &nr, nil
}
