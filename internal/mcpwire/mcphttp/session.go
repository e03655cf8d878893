package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Spec says how to reach a remote (Streamable HTTP) server.
type Spec struct {
	// URL is the server's endpoint exactly as locked (netrule.ParseServerURL).
	URL string
	// Header is sent on every request: the lock entry's header names with
	// values from the environment (never stored), and a bearer token. Nil:
	// none.
	Header http.Header
	// MaxMessage caps one message (a JSON body or one SSE event's data);
	// 0 means mcpspec.MaxMessage.
	MaxMessage int
	// Client, if set, replaces the pinned client of NewHTTPClient (tests).
	Client *http.Client
	// Note, if set, hears what mcpsum refused or could not do on the
	// server's behalf (a redirect to another origin, a failed refresh). It
	// may be called from several goroutines.
	Note func(msg string)
	// Tools are the locked tools: their x-mcp-header annotations make the
	// Mcp-Param-* headers of a 2026-07-28 tools/call (params.go). Nil: none.
	Tools []json.RawMessage
}

// Sink is where the server's messages go. Its functions may be called from
// several goroutines, one message at a time each; the Session calls none of
// them while it holds a lock of its own.
type Sink struct {
	// Message takes one whole message (one JSON body or SSE event, its
	// line breaks turned into tabs); data is the sink's. An error ends the
	// session with it (a message the sink refuses, or a sink that closed).
	Message func(data []byte) error
	// Small, with Long, is the size up to which a message is handed to
	// Message whole; a longer one streams into Long's writer as it
	// arrives. Without Long every message comes whole (up to MaxMessage).
	Small int
	// Long begins a message longer than Small: its bytes follow through w
	// (line breaks turned into tabs), then end(nil); or end(err) when it
	// broke off (half a message was written; the session then ends).
	Long func() (w io.Writer, end func(err error))
	// Unanswered: the request id will get no answer from the server (an
	// HTTP error status, a stream that ended first, an answer that is not
	// one); err says why. The session goes on.
	Unanswered func(id []byte, err error)
	// Ended: the session is over; err says why (ErrClosed after Stop).
	// Called once.
	Ended func(err error)
}

// Hooks are what a session asks of its user during a legacy session's
// renewal and when credentials are refused; each may be nil.
type Hooks struct {
	// Renewed: a legacy session expired (HTTP 404, or a 400 a ping of the
	// session confirmed) and a new one answered initialize with renewed
	// (first is the InitializeResult the session began with). An error ends the session; wait, if not nil, is called
	// before each of the caller's requests goes on in the new session
	// (not its own, see Own): nil lets it go on, an error ends the session.
	Renewed func(first, renewed json.RawMessage) (wait func() error, err error)
	// Own reports a request that does not wait for Renewed's wait (the
	// caller's own checks of the renewed session).
	Own func(id []byte) bool
	// Relistened: a subscriptions/listen stream was opened again after it
	// broke; what changed meanwhile was not announced.
	Relistened func()
	// Reauth gives a new Authorization value after the server refused the
	// one sent (HTTP 401; challenge is its WWW-Authenticate); without it,
	// or when it fails, the session ends with an *AuthError.
	Reauth func(ctx context.Context, refused, challenge string) (string, error)
	// StepUp: the server refused a request with 403 (challenge: its
	// WWW-Authenticate). A non-nil error leaves that request Unanswered
	// with it and the session goes on (a call that needs a wider OAuth
	// scope); nil, or no hook, ends the session with an *AuthError.
	StepUp func(challenge string) error
}

// Session is a Streamable HTTP session with one server, in either era:
//
//   - legacy: initialize, then the Mcp-Session-Id the server assigned and
//     the negotiated MCP-Protocol-Version on every later request; the GET
//     stream for the server's own messages once notifications/initialized
//     was accepted (reconnected with Last-Event-ID when it ends); a 404 to
//     a request of the session means it expired, and the session is renewed
//     (initialize replayed, Hooks.Renewed asked); DELETE on Stop.
//   - 2026-07-28: stateless POSTs carrying MCP-Protocol-Version (from the
//     request's _meta), Mcp-Method, Mcp-Name (tools/call, prompts/get,
//     resources/read) and Mcp-Param-* (Spec.Tools); a subscriptions/listen
//     stream that ends is opened again; notifications/cancelled closes the
//     request's POST instead of being sent.
//
// Each message the caller sends is a POST; every message that comes back
// (a JSON body, one SSE event of a POST's stream or of the GET stream)
// goes to the Sink one at a time, never two joined, each capped at
// MaxMessage. A 401 asks Hooks.Reauth once; 401 and 403 otherwise end the
// session with an *AuthError. The HTTP client connects only to the locked
// origin (NewHTTPClient).
//
// Locks: renewMu (one renewal at a time) and authMu (one re-authorization
// at a time) are held across the requests and the hook call of what they
// serialize, and are taken before mu; mu (the session's state) is never
// held across a request, a hook or a Sink call.
type Session struct {
	url    string
	client *http.Client
	max    int
	params map[string][]paramBinding // Mcp-Param-* by locked tool name
	note   func(string)
	sink   Sink
	hooks  Hooks

	ctx    context.Context // ends with the session
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines of requests and the GET stream

	mu       sync.Mutex
	header   http.Header // Spec.Header and a refreshed Authorization
	sess     legacySession
	inflight map[string]*inflight // requests whose POST runs, by id
	renewMu  sync.Mutex           // one renewal at a time; holders wait for its check
	authMu   sync.Mutex           // one re-authorization at a time

	dead    chan struct{}
	once    sync.Once
	err     error
	reached atomic.Bool // the server answered a request once (HTTP, any status)
}

// legacySession is the state of a legacy session (guarded by mu).
type legacySession struct {
	id        string          // Mcp-Session-Id
	version   string          // negotiated MCP-Protocol-Version
	initReq   []byte          // the initialize request, replayed when the session expires
	first     json.RawMessage // the InitializeResult it began with
	getOpen   bool            // the GET stream runs
	getCancel func()          // ends the GET stream's current request (a renewal: the new session's stream)
	lastEvent string          // the GET stream's last event id (Last-Event-ID when it reconnects)
	renewErr  error           // the outcome of the last renewal
	wait      func() error    // for calls on the renewed session: its surface check
	renewals  int             // how many times it was renewed
}

// inflight is one request's POST.
type inflight struct {
	cancel context.CancelFunc
}

// New prepares a session with the server at spec.URL. Nothing is sent until
// the first message.
func New(spec Spec, sink Sink, hooks Hooks) (*Session, error) {
	u, err := netrule.ParseServerURL(spec.URL)
	if err != nil {
		return nil, fmt.Errorf("remote server URL %s: %w", termtext.Quoted(spec.URL, 200), err)
	}
	if sink.Message == nil || sink.Unanswered == nil || sink.Ended == nil {
		return nil, errors.New("mcphttp: a Sink needs Message, Unanswered and Ended")
	}
	client := spec.Client
	if client == nil {
		client = NewHTTPClient(u, spec.Note)
	}
	max := spec.MaxMessage
	if max <= 0 {
		max = mcpspec.MaxMessage
	}
	if sink.Long == nil || sink.Small <= 0 || sink.Small > max {
		sink.Small = max
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{url: u.String(), client: client, max: max, params: lockedParamHeaders(spec.Tools),
		note: spec.Note, sink: sink, hooks: hooks, ctx: ctx, cancel: cancel, header: spec.Header.Clone(),
		inflight: map[string]*inflight{}, dead: make(chan struct{})}, nil
}

// URL is the server's endpoint.
func (s *Session) URL() string { return s.url }

// Done is closed when the session ended; Err then says why.
func (s *Session) Done() <-chan struct{} { return s.dead }

// Err is why the session ended (nil while it runs).
func (s *Session) Err() error {
	select {
	case <-s.dead:
		return s.err
	default:
		return nil
	}
}

// Renewals says how many times an expired legacy session was replaced.
func (s *Session) Renewals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess.renewals
}

// fail ends the session with err: every request and stream is cancelled and
// the sink hears why.
func (s *Session) fail(err error) {
	s.once.Do(func() {
		s.err = err
		close(s.dead)
		s.cancel()
		s.sink.Ended(err)
	})
}

// Stop ends the session: DELETE of a legacy session (bounded by grace),
// then every request and stream is closed and waited for.
func (s *Session) Stop(grace time.Duration) {
	s.mu.Lock()
	sid := s.sess.id
	s.sess.id = "" // one DELETE, however often Stop is called
	s.mu.Unlock()
	if sid != "" && s.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), max(grace, 100*time.Millisecond))
		if req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil); err == nil {
			s.setHeaders(req.Header, sid)
			if resp, err := s.client.Do(req); err == nil {
				drain(resp.Body)
			}
		}
		cancel()
	}
	s.fail(ErrClosed)
	s.wg.Wait()
}

// Send sends one message (one JSON-RPC message; not changed by the caller
// after). A request's POST runs in the background and its answer goes to
// the Sink; a notification or a response is accepted by the server (HTTP
// 2xx) before Send returns, so the server sees them in the order sent, as
// on a pipe. An error that is not the message's own ends the session.
func (s *Session) Send(msg []byte) error {
	select {
	case <-s.dead:
		return s.err
	default:
	}
	m, err := readEnvelope(msg)
	if err != nil {
		return fmt.Errorf("remote server %s: sending %w", s.url, err)
	}
	if m.request() {
		ctx, cancel := context.WithCancel(s.ctx)
		s.mu.Lock()
		if m.method == "initialize" {
			s.sess = legacySession{initReq: bytes.Clone(msg), renewals: s.sess.renewals}
		}
		s.inflight[string(m.id)] = &inflight{cancel: cancel}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer cancel()
			s.request(ctx, msg, &m)
		}()
		return nil
	}
	if m.method == "notifications/cancelled" && !s.cancelled(&m) {
		return nil // 2026-07-28: closing the request's POST is the cancellation
	}
	if err := s.send(msg, &m); err != nil {
		s.fail(err)
		return err
	}
	if m.method == "notifications/initialized" {
		s.openGet()
	}
	return nil
}

// cancelled aborts the POST of the request a notifications/cancelled names;
// it reports whether the notification itself goes to the server too (a
// legacy session, where the server may be working on it elsewhere).
func (s *Session) cancelled(m *envelope) bool {
	f, _ := jsonscan.Fields(m.params, "requestId")
	s.mu.Lock()
	defer s.mu.Unlock()
	if f != nil && f[0] != nil {
		if r := s.inflight[string(f[0])]; r != nil {
			r.cancel()
		}
	}
	return s.sess.id != ""
}

func (s *Session) forget(id []byte) {
	s.mu.Lock()
	delete(s.inflight, string(id))
	s.mu.Unlock()
}

// send posts a notification or a response and wants it accepted.
func (s *Session) send(msg []byte, m *envelope) error {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	renewed, reauthed, resent := false, false, false
	for {
		resp, sid, err := s.post(ctx, msg, m)
		if err != nil && !resent && s.dropped(ctx, err) {
			// A POST dropped on a kept connection (the server restarted,
			// a balancer recycled it) goes once more on a new one: a
			// response or notification lost so would end the session,
			// and one the server did get and gets again is one it already
			// handled (an answer to an id it has done with, a second
			// cancel or progress).
			resent = true
			continue
		}
		if err != nil {
			return err
		}
		if sid != "" && !renewed && s.sessionGone(ctx, resp, sid) {
			if err := s.renew(sid, resp.StatusCode, nil); err != nil {
				return err
			}
			renewed = true
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized && !reauthed && s.reauthorize(ctx, resp.Request.Header.Get("Authorization"), resp.Header.Get("WWW-Authenticate")) {
			drain(resp.Body)
			reauthed = true
			continue
		}
		defer drain(resp.Body)
		switch {
		case wantsCredentials(resp):
			return authError(s.url, resp)
		case resp.StatusCode < 200 || resp.StatusCode > 299:
			body, _ := readAtMost(resp.Body, 4<<10)
			return &HTTPStatusError{URL: s.url, Method: what(m), Status: resp.StatusCode, Body: body}
		}
		return nil
	}
}

// post sends msg with the session's headers; sid is the session it went to.
func (s *Session) post(ctx context.Context, msg []byte, m *envelope) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(msg))
	if err != nil {
		return nil, "", fmt.Errorf("remote server %s: %w", s.url, err)
	}
	s.mu.Lock()
	sid := s.sess.id
	s.mu.Unlock()
	mo, modern := modernOf(m)
	if m.method == "initialize" || modern {
		sid = "" // initialize begins a session; a 2026-07-28 request has none
	}
	s.setHeaders(req.Header, sid)
	if m.method == "initialize" {
		req.Header.Del(HeaderProtocolVersion) // it is being negotiated
	}
	if modern {
		mo.set(req.Header, m.method)
		setParamHeaders(req.Header, s.params, m)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := s.client.Do(req)
	// A server that answered before and now refuses connections is
	// restarting (a redeploy, a crash and restart): nothing was sent, so
	// the POST goes again once it listens, backing off, for up to
	// restartWait; one that does not come back fails as before.
	for wait, until := 100*time.Millisecond, time.Now().Add(restartWait); err != nil && s.reached.Load() && errors.Is(err, syscall.ECONNREFUSED) && time.Now().Before(until); wait = min(2*wait, 2*time.Second) {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		if ctx.Err() != nil {
			break
		}
		again := req.Clone(ctx)
		if again.Body, err = req.GetBody(); err != nil {
			break
		}
		resp, err = s.client.Do(again)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, sid, ctx.Err()
		}
		err = unwrapURL(err)
		if errors.As(err, new(*RedirectError)) {
			return nil, sid, fmt.Errorf("remote server %s: %s: %w", s.url, what(m), err)
		}
		return nil, sid, fmt.Errorf("remote server %s cannot be reached: %s: %w", s.url, what(m), err)
	}
	return resp, sid, nil
}

// restartWait bounds how long a POST waits for a server that answered
// before and now refuses connections (see post).
var restartWait = 30 * time.Second

// dropped reports whether err is a POST's connection failing after the
// server was reached (a reset, an EOF): not a cancellation, a redirect, or a
// dial of a server never reached.
func (s *Session) dropped(ctx context.Context, err error) bool {
	var op *net.OpError
	return ctx.Err() == nil && s.reached.Load() && !errors.As(err, new(*RedirectError)) && !(errors.As(err, &op) && op.Op == "dial")
}

// setHeaders puts the spec's headers and a legacy session's on h.
func (s *Session) setHeaders(h http.Header, sid string) {
	s.mu.Lock()
	for k, vs := range s.header {
		h[k] = vs
	}
	v := s.sess.version
	s.mu.Unlock()
	if v != "" {
		h.Set(HeaderProtocolVersion, v)
	}
	if sid != "" {
		h.Set(HeaderSessionID, sid)
	}
}

// reauthorize replaces the Authorization header after the server refused
// sent (the value a request carried); false when it cannot (no Reauth, or
// it failed: the session then ends with the 401).
func (s *Session) reauthorize(ctx context.Context, sent, challenge string) bool {
	if s.hooks.Reauth == nil {
		return false
	}
	s.authMu.Lock()
	defer s.authMu.Unlock()
	s.mu.Lock()
	now := s.header.Get("Authorization")
	s.mu.Unlock()
	if now != sent { // another request refreshed it meanwhile
		return true
	}
	v, err := s.hooks.Reauth(ctx, sent, challenge)
	if err != nil {
		if s.note != nil {
			s.note(err.Error())
		}
		return false
	}
	s.mu.Lock()
	if s.header == nil {
		s.header = http.Header{}
	}
	s.header.Set("Authorization", v)
	s.mu.Unlock()
	return true
}
