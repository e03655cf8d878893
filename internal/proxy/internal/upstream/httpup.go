package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// HTTP is a remote server spoken to over Streamable HTTP, in the
// locked era. Each message the core writes becomes a POST (a legacy
// session's Mcp-Session-Id and negotiated MCP-Protocol-Version on it, or a
// 2026-07-28 request's MCP-Protocol-Version, Mcp-Method, Mcp-Name and
// Mcp-Param-* headers). Every message that comes back — a JSON body, one
// SSE event of a POST's stream or of the legacy GET stream — is written as
// one line into a pipe that the core reads as it reads a server's stdout,
// one message at a time and never two joined: an event holding two
// messages, or half of one, is refused by the core's checks exactly as a
// stdio line would be. A long event is not held: its data streams into the
// pipe as it arrives (mcpwire.SSEStream), so an 8 MiB result costs no more
// memory than on stdio.
type HTTP struct {
	url    string
	client *http.Client
	header http.Header // the entry's headers from the environment, and the bearer token (mu)
	max    int
	params map[string][]paramBinding // Mcp-Param-* by locked tool name
	hooks  Hooks

	pr     *io.PipeReader
	pw     *io.PipeWriter
	pipeMu sync.Mutex // one message at a time into the pipe

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sess     legacySession
	inflight map[string]*inflight // requests whose POST runs, by id
	renewMu  sync.Mutex           // one renewal at a time; holders wait for its check
	authMu   sync.Mutex           // one re-authorization at a time

	dead chan struct{}
	once sync.Once
	err  error
}

// Hooks are what the upstream asks of the proxy.
type Hooks struct {
	// Renewed: a legacy session expired and a new one answered initialize
	// with result; the proxy checks the surface again; wait returns nil
	// once a call of the client may go on (else the session is over).
	Renewed func(result json.RawMessage) (wait func() error, err error)
	// Own reports a request of the proxy's own (it does not wait).
	Own func(id []byte) bool
	// Relistened: a listen stream was opened again after it broke; changes
	// in between were not announced, so the surface is checked again.
	Relistened func()
	// Reauth gives a new Authorization value after the server refused the
	// one sent (nil: a refusal ends the session).
	Reauth func(ctx context.Context, refused, challenge string) (string, error)
	// StepUp: the server refused a request with 403 (challenge: its
	// WWW-Authenticate); a non-nil error answers the request and the
	// session goes on (nil hook or nil error: the refusal ends it).
	StepUp func(challenge string) error
	// Note hears what mcpsum refused on the server's behalf.
	Note func(string)
}

// legacySession is the state of a legacy session (guarded by mu).
type legacySession struct {
	id        string       // Mcp-Session-Id
	version   string       // negotiated MCP-Protocol-Version
	initReq   []byte       // the initialize request, replayed when the session expires
	getOpen   bool         // the GET stream runs
	lastEvent string       // the GET stream's last event id (Last-Event-ID when it reconnects)
	renewErr  error        // the outcome of the last renewal
	wait      func() error // for calls on the renewed session: its surface check
}

// inflight is one request's POST.
type inflight struct {
	cancel    context.CancelFunc
	cancelled bool // the client cancelled it: no reconnect, no error answer
}

// smallEvent is the size up to which an event or JSON body is read whole
// (and looked at: is it the answer?); longer ones stream into the pipe.
const smallEvent = 64 << 10

func NewHTTP(spec mcpwire.HTTPSpec, tools []json.RawMessage, hooks Hooks) (*HTTP, error) {
	u, err := netrule.ParseServerURL(spec.URL)
	if err != nil {
		return nil, fmt.Errorf("remote server URL %s: %w", termtext.Quoted(spec.URL, 200), err)
	}
	client := spec.Client
	if client == nil {
		client = mcpwire.NewHTTPClient(u, hooks.Note)
	}
	max := spec.MaxMessage
	if max <= 0 {
		max = mcpwire.DefaultMaxLine
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	return &HTTP{url: u.String(), client: client, header: spec.Header.Clone(), max: max,
		params: lockedParamHeaders(tools), hooks: hooks, pr: pr, pw: pw, ctx: ctx, cancel: cancel,
		inflight: map[string]*inflight{}, dead: make(chan struct{})}, nil
}

func (u *HTTP) Messages() io.Reader     { return u.pr }
func (u *HTTP) Exited() <-chan struct{} { return u.dead }
func (u *HTTP) StderrTail() []string    { return nil }

func (u *HTTP) ExitError() error {
	select {
	case <-u.dead:
		return u.err
	default:
		return nil
	}
}

// fail ends the session with err: the core reads the end of its messages
// and reports err (a server that cannot be reached looks failed, as a
// process that died does).
func (u *HTTP) fail(err error) {
	u.once.Do(func() {
		u.err = err
		close(u.dead)
		u.cancel()
		u.pw.Close()
	})
}

// Stop ends the session: DELETE of a legacy session (bounded by grace),
// then every stream is closed and waited for.
func (u *HTTP) Stop(grace, _ time.Duration) error {
	u.mu.Lock()
	sid := u.sess.id
	u.sess.id = "" // one DELETE, however often stop is called
	u.mu.Unlock()
	if sid != "" && u.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), max(grace, 100*time.Millisecond))
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u.url, nil); err == nil {
			u.setHeaders(req.Header, sid)
			if resp, err := u.client.Do(req); err == nil {
				drainBody(resp.Body)
			}
		}
		cancel()
	}
	u.fail(fmt.Errorf("remote server %s: %w", u.url, mcpwire.ErrClosed))
	u.wg.Wait()
	return nil
}

// WriteLine sends one message: a request's POST runs in the background (its
// answer comes through the pipe); a notification or response is accepted
// before write returns, so the server sees them in the order written.
func (u *HTTP) WriteLine(parts ...[]byte) error {
	select {
	case <-u.dead:
		return u.err
	default:
	}
	msg := jsonline.Concat(parts...)
	m, err := mcpwire.Decode(msg)
	if err != nil {
		return err
	}
	if m.IsRequest() {
		ctx, cancel := context.WithCancel(u.ctx)
		u.mu.Lock()
		if m.Method == "initialize" {
			u.sess = legacySession{initReq: msg}
		}
		u.inflight[string(m.ID)] = &inflight{cancel: cancel}
		u.mu.Unlock()
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			defer cancel()
			u.request(ctx, msg, m)
		}()
		return nil
	}
	if m.Method == "notifications/cancelled" && !u.cancelled(m) {
		return nil // 2026-07-28: closing the request's POST is the cancellation
	}
	if err := u.send(msg, m); err != nil {
		u.fail(err)
		return err
	}
	if m.Method == "notifications/initialized" {
		u.openGet()
	}
	return nil
}

// cancelled aborts the POST of the request a notifications/cancelled names;
// it reports whether the notification itself goes to the server too (a
// legacy session, where the server may be working on it elsewhere).
func (u *HTTP) cancelled(m *mcpwire.Message) bool {
	f, _ := jsonscan.Fields(m.Params, "requestId")
	u.mu.Lock()
	defer u.mu.Unlock()
	if f[0] != nil {
		if r := u.inflight[string(f[0])]; r != nil {
			r.cancelled = true
			r.cancel()
		}
	}
	return u.sess.id != ""
}

// send posts a notification or a response and wants it accepted.
func (u *HTTP) send(msg []byte, m *mcpwire.Message) error {
	ctx, cancel := context.WithTimeout(u.ctx, 30*time.Second)
	defer cancel()
	renewed, reauthed := false, false
	for {
		resp, sid, err := u.post(ctx, msg, m)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusNotFound && sid != "" && !renewed {
			drainBody(resp.Body)
			if err := u.renew(sid, nil); err != nil {
				return err
			}
			renewed = true
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized && !reauthed && u.reauthorize(ctx, resp.Request.Header.Get("Authorization"), resp.Header.Get("WWW-Authenticate")) {
			drainBody(resp.Body)
			reauthed = true
			continue
		}
		defer drainBody(resp.Body)
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return authError(u.url, resp)
		case resp.StatusCode < 200 || resp.StatusCode > 299:
			body, _ := readAtMost(resp.Body, 4<<10)
			return fmt.Errorf("remote server %s refused %s with HTTP %d %s", u.url, describeMsg(m), resp.StatusCode, termtext.Quoted(string(body), 200))
		}
		return nil
	}
}

// post sends msg with the session's headers; sid is the session it went to.
func (u *HTTP) post(ctx context.Context, msg []byte, m *mcpwire.Message) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.url, bytes.NewReader(msg))
	if err != nil {
		return nil, "", fmt.Errorf("remote server %s: %w", u.url, err)
	}
	u.mu.Lock()
	sid := u.sess.id
	u.mu.Unlock()
	if m.Method == "initialize" {
		sid = ""
	}
	u.setHeaders(req.Header, sid)
	if m.Method == "initialize" {
		req.Header.Del("MCP-Protocol-Version") // it is being negotiated
	}
	if mcpwire.ModernHeaders(req.Header, m) {
		setParamHeaders(req.Header, u.params, m)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := u.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, sid, ctx.Err()
		}
		return nil, sid, fmt.Errorf("remote server %s cannot be reached: %s: %w", u.url, describeMsg(m), unwrapURL(err))
	}
	return resp, sid, nil
}

// setHeaders puts the entry's headers and a legacy session's on h.
func (u *HTTP) setHeaders(h http.Header, sid string) {
	u.mu.Lock()
	for k, vs := range u.header {
		h[k] = vs
	}
	v := u.sess.version
	u.mu.Unlock()
	if v != "" {
		h.Set("MCP-Protocol-Version", v)
	}
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
}

// deliver writes one small message into the pipe as one line.
// msg is the caller's: its line end is appended in place, so the reader
// gets the line in one hand-over.
func (u *HTTP) deliver(msg []byte) error {
	msg = append(msg, '\n')
	u.pipeMu.Lock()
	defer u.pipeMu.Unlock()
	_, err := u.pw.Write(msg)
	return err
}

// answerError answers request id with a JSON-RPC error of the proxy's own
// (the core drops it when the real answer came first).
func (u *HTTP) answerError(id []byte, format string, a ...any) {
	msg := jsonline.ErrorLine(id, &jsonline.Error{Code: -32603, Message: "mcpsum: remote server " + u.url + ": " + fmt.Sprintf(format, a...)})
	u.deliver(msg)
}

func describeMsg(m *mcpwire.Message) string {
	if m == nil {
		return "the GET stream"
	}
	if m.Method != "" {
		return termtext.Quoted(m.Method, 80)
	}
	return "a response"
}

// reauthorize replaces the Authorization header after the server refused
// sent (the value a request carried); false when it cannot (no sign-in to
// refresh, or refreshing failed: the session then ends with the 401).
func (u *HTTP) reauthorize(ctx context.Context, sent, challenge string) bool {
	if u.hooks.Reauth == nil {
		return false
	}
	u.authMu.Lock()
	defer u.authMu.Unlock()
	u.mu.Lock()
	now := u.header.Get("Authorization")
	u.mu.Unlock()
	if now != sent { // another request refreshed it meanwhile
		return true
	}
	v, err := u.hooks.Reauth(ctx, sent, challenge)
	if err != nil {
		if u.hooks.Note != nil {
			u.hooks.Note(err.Error())
		}
		return false
	}
	u.mu.Lock()
	u.header.Set("Authorization", v)
	u.mu.Unlock()
	return true
}

// stepUp answers a request the server refused with 403 with Hooks.StepUp's
// error, when it gives one.
func (u *HTTP) stepUp(resp *http.Response, m *mcpwire.Message) bool {
	if u.hooks.StepUp == nil {
		return false
	}
	err := u.hooks.StepUp(resp.Header.Get("WWW-Authenticate"))
	if err != nil {
		u.answerError(m.ID, "%v", err)
	}
	return err != nil
}

func authError(url string, resp *http.Response) error {
	h := resp.Header.Get("WWW-Authenticate")
	return &mcpwire.AuthError{URL: url, Status: resp.StatusCode, Challenge: termtext.TruncateQuote(h, 300), Header: h}
}

func readAtMost(r io.Reader, n int64) ([]byte, error) { return io.ReadAll(io.LimitReader(r, n)) }

func drainBody(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
