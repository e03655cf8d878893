package mcpwire

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/netrule"
)

// HTTPSpec says how to reach a remote (Streamable HTTP) server.
type HTTPSpec struct {
	// URL is the server's endpoint exactly as locked (see netrule.ParseServerURL).
	URL string
	// Header is sent on every request: the lock entry's header names with
	// values from the environment (never stored). Nil: none.
	Header http.Header
	// MaxMessage caps one message (a JSON body or one SSE event); 0 means
	// DefaultMaxLine.
	MaxMessage int
	// Client, if set, replaces the pinned client of NewHTTPClient (tests).
	Client *http.Client
	// Note, if set, hears what mcpsum refused on the server's behalf (a
	// redirect to another origin). It may be called from several goroutines.
	Note func(msg string)
}

// HTTP is a Streamable HTTP session with one server (both eras):
//
//   - legacy: initialize, then the Mcp-Session-Id the server assigned and
//     the negotiated MCP-Protocol-Version on every later request; the GET
//     stream for the server's own messages once the session is initialized;
//     a 404 on a request of the session means it expired, and the session is
//     renewed (initialize replayed; a different InitializeResult fails it);
//     DELETE on Stop.
//   - 2026-07-28: stateless POSTs carrying MCP-Protocol-Version (taken from
//     the request's _meta), Mcp-Method and, for tools/call, prompts/get and
//     resources/read, Mcp-Name.
//
// Responses are JSON or SSE; each SSE event must hold exactly one JSON-RPC
// message (checked with Decode, like a stdio line). A POST's stream is read
// until its response arrived, then closed. Messages wait in an unbuffered
// hand-off, so each open stream holds at most one message in memory.
type HTTP struct {
	spec   HTTPSpec
	url    string
	client *http.Client
	max    int

	ctx    context.Context
	cancel context.CancelFunc
	in     chan []byte
	wg     sync.WaitGroup

	mu        sync.Mutex
	session   string // Mcp-Session-Id (legacy)
	version   string // negotiated legacy protocol version
	initReq   []byte // the initialize request, replayed when a session expires
	initRes   []byte // its result, compared on renewal
	initID    string
	streaming bool // the GET stream was opened
	renewed   int

	failOnce sync.Once
	err      error
	dead     chan struct{}

	callFailed func(id json.RawMessage, err error) // set by the Client
}

var _ Transport = (*HTTP)(nil)

// DialHTTP prepares a session with the server at spec.URL. Nothing is sent
// until the first message.
func DialHTTP(spec HTTPSpec) (*HTTP, error) {
	u, err := netrule.ParseServerURL(spec.URL)
	if err != nil {
		return nil, fmt.Errorf("remote server URL %s: %w", quoted(spec.URL, 200), err)
	}
	client := spec.Client
	if client == nil {
		client = NewHTTPClient(u, spec.Note)
	}
	ctx, cancel := context.WithCancel(context.Background())
	max := spec.MaxMessage
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &HTTP{spec: spec, url: u.String(), client: client, max: max, ctx: ctx, cancel: cancel,
		in: make(chan []byte), dead: make(chan struct{})}, nil
}

// Label is the server's URL.
func (t *HTTP) Label() string { return t.url }

// StderrTail is nil: a remote server has no stderr.
func (t *HTTP) StderrTail() []string { return nil }

// Exited is nil: a remote session ends through ReadMessage's error.
func (t *HTTP) Exited() <-chan struct{} { return nil }

// ExitReason is nil (see Exited).
func (t *HTTP) ExitReason() error { return nil }

// Renewals says how many times an expired session was replaced.
func (t *HTTP) Renewals() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.renewed
}

// ReadMessage returns the next message any of the session's streams carried.
func (t *HTTP) ReadMessage() ([]byte, error) {
	select {
	case m := <-t.in:
		return m, nil
	case <-t.dead:
		select {
		case m := <-t.in:
			return m, nil
		default:
		}
		return nil, t.err
	}
}

func (t *HTTP) fail(err error) {
	t.failOnce.Do(func() {
		t.err = err
		close(t.dead)
	})
}

// Stop ends the session: DELETE (legacy, when the server assigned a session;
// bounded by grace), then every stream is closed.
func (t *HTTP) Stop(grace time.Duration) error {
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	if session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), max(grace, 100*time.Millisecond))
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, t.url, nil)
		if err == nil {
			t.setHeaders(req.Header, session)
			if resp, err := t.client.Do(req); err == nil {
				drain(resp.Body)
			}
		}
		cancel()
	}
	t.cancel()
	t.fail(ErrClosed)
	t.wg.Wait()
	return nil
}

// WriteMessage posts one message. The answer (JSON or an SSE stream) is read
// in the background and handed to ReadMessage.
func (t *HTTP) WriteMessage(msg []byte) error {
	select {
	case <-t.dead:
		return t.err
	default:
	}
	m, err := Decode(msg)
	if err != nil {
		return err
	}
	if m.Method == "initialize" && m.IsRequest() {
		t.mu.Lock()
		t.initReq, t.initID, t.initRes, t.session, t.version = append([]byte(nil), msg...), string(m.ID), nil, "", ""
		t.mu.Unlock()
	}
	if !m.IsRequest() {
		// A notification or response is accepted (202) before WriteMessage
		// returns, so the server sees messages in the order they were
		// written, as on a pipe: notifications/initialized before the first
		// list (server-everything registers some tools when it arrives).
		if err := t.post(msg, m, true); err != nil {
			t.fail(err)
			return err
		}
		return nil
	}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		if err := t.post(msg, m, true); err != nil {
			t.fail(err)
		}
	}()
	return nil
}

func (t *HTTP) setHeaders(h http.Header, session string) {
	for k, vs := range t.spec.Header {
		h[k] = vs
	}
	t.mu.Lock()
	if t.version != "" {
		h.Set("MCP-Protocol-Version", t.version)
	}
	t.mu.Unlock()
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
}

// modernHeaders sets the 2026-07-28 headers of a message whose _meta names
// a 2026-07-28 (or later) version; it reports whether it did.
func modernHeaders(h http.Header, m *Message) bool {
	if m.Method == "" || len(m.Params) == 0 {
		return false
	}
	f, err := jsonscan.Fields(m.Params, "_meta", "name", "uri")
	if err != nil || f[0] == nil {
		return false
	}
	mf, err := jsonscan.Fields(f[0], MetaProtocolVersion)
	if err != nil || mf[0] == nil {
		return false
	}
	v, ok := jsonscan.String(mf[0])
	if !ok || !isVersion(v) || v < Modern {
		return false
	}
	h.Set("MCP-Protocol-Version", v)
	h.Set("Mcp-Method", headerValue(m.Method))
	name := f[1]
	if m.Method == "resources/read" {
		name = f[2]
	}
	switch m.Method {
	case "tools/call", "prompts/get", "resources/read":
		if s, ok := jsonscan.String(name); ok {
			h.Set("Mcp-Name", headerValue(s))
		}
	}
	return true
}

// headerValue encodes a value for an Mcp-* header: as is when it is
// printable ASCII without edge spaces, else "=?base64?…?=" (SEP-2243).
func headerValue(s string) string {
	plain := !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") && !strings.HasPrefix(s, "\t") && !strings.HasSuffix(s, "\t") &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// post sends msg and reads its answer. renew allows one session renewal.
func (t *HTTP) post(msg []byte, m *Message, renew bool) error {
	req, err := http.NewRequestWithContext(t.ctx, http.MethodPost, t.url, bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("remote server %s: %w", t.url, err)
	}
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	modern := modernHeaders(req.Header, m)
	if modern {
		session = ""
	}
	t.setHeaders(req.Header, session)
	if modern { // setHeaders may have put a legacy version back
		modernHeaders(req.Header, m)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		if t.ctx.Err() != nil {
			return ErrClosed
		}
		return fmt.Errorf("remote server %s: %s: %w", t.url, what(m), unwrapURLError(err))
	}
	defer drain(resp.Body)
	if resp.StatusCode == http.StatusNotFound && session != "" && m.Method != "initialize" {
		if !renew {
			return fmt.Errorf("remote server %s: the new session expired at once (HTTP 404 to %s)", t.url, what(m))
		}
		if err := t.renewSession(session); err != nil {
			return err
		}
		return t.post(msg, m, false)
	}
	return t.answer(resp, m)
}

// answer handles the response to a POST of m.
func (t *HTTP) answer(resp *http.Response, m *Message) error {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &AuthError{URL: t.url, Status: resp.StatusCode, Challenge: TruncateQuote(resp.Header.Get("WWW-Authenticate"), 300), Header: resp.Header.Get("WWW-Authenticate")}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return t.statusError(resp, m)
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		if m.IsRequest() {
			return fmt.Errorf("remote server %s answered HTTP %d with no body to the request %s", t.url, resp.StatusCode, what(m))
		}
		return nil
	case !m.IsRequest():
		return nil // a notification or response needs no body; ignore one
	case ct == "application/json":
		body, err := readCapped(resp.Body, t.max)
		if err != nil {
			return fmt.Errorf("remote server %s: reading the answer to %s: %w", t.url, what(m), err)
		}
		return t.deliver(resp, m, body)
	case ct == "text/event-stream":
		return t.stream(resp, m)
	}
	return fmt.Errorf("remote server %s answered %s with Content-Type %s (want application/json or text/event-stream)", t.url, what(m), quoted(resp.Header.Get("Content-Type"), 100))
}

// stream reads an SSE response until m's response arrived.
func (t *HTTP) stream(resp *http.Response, m *Message) error {
	r := newSSEReader(resp.Body, t.max)
	for {
		ev, err := r.next()
		if err != nil {
			if t.ctx.Err() != nil {
				return ErrClosed
			}
			if m == nil && errors.Is(err, io.EOF) { // the GET stream ended
				return nil
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("the stream ended before the response")
			}
			return fmt.Errorf("remote server %s: SSE answer to %s: %w", t.url, what(m), err)
		}
		if ev.Type != "" && ev.Type != "message" {
			continue
		}
		done, err := t.handOff(resp, m, ev.Data)
		if err != nil || done {
			return err
		}
	}
}

// deliver hands over a JSON body that must be m's response.
func (t *HTTP) deliver(resp *http.Response, m *Message, body []byte) error {
	done, err := t.handOff(resp, m, body)
	if err == nil && !done {
		err = fmt.Errorf("remote server %s answered %s with a JSON body that is not its response", t.url, what(m))
	}
	return err
}

// handOff checks one message and passes it to the reader; done reports the
// response to m (nil m: the GET stream, never done).
func (t *HTTP) handOff(resp *http.Response, m *Message, data []byte) (done bool, err error) {
	got, err := Decode(data)
	if err != nil {
		return false, fmt.Errorf("remote server %s sent something other than one JSON-RPC message in one event or body: %w", t.url, err)
	}
	done = m != nil && got.IsResponse() && bytes.Equal(got.ID, m.ID)
	if done && m.Method == "initialize" {
		t.initialized(resp, got)
	}
	select {
	case t.in <- data:
	case <-t.ctx.Done():
		return false, ErrClosed
	}
	return done, nil
}

// initialized records the session the server assigned and the negotiated
// version, then opens the GET stream.
func (t *HTTP) initialized(resp *http.Response, res *Message) {
	if res.Result == nil {
		return
	}
	f, _ := jsonscan.Fields(res.Result, "protocolVersion")
	v, _ := jsonscan.String(f[0])
	sid := resp.Header.Get("Mcp-Session-Id")
	if !validSessionID(sid) {
		sid = ""
	}
	t.mu.Lock()
	if t.initRes == nil {
		t.initRes = res.Result
	}
	t.session, t.version = sid, v
	open := !t.streaming && sid != ""
	t.streaming = t.streaming || open
	t.mu.Unlock()
	if open {
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.getStream()
		}()
	}
}

// validSessionID: visible ASCII (0x21–0x7E), at most 1024 bytes.
func validSessionID(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// getStream opens the legacy GET stream for the server's own messages (a
// server that offers none answers 405).
func (t *HTTP) getStream() {
	time.Sleep(20 * time.Millisecond) // after notifications/initialized is on its way
	req, err := http.NewRequestWithContext(t.ctx, http.MethodGet, t.url, nil)
	if err != nil {
		return
	}
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	t.setHeaders(req.Header, session)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := t.client.Do(req)
	if err != nil {
		return
	}
	defer drain(resp.Body)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		return
	}
	if err := t.stream(resp, nil); err != nil && !errors.Is(err, ErrClosed) {
		t.fail(err)
	}
}

// renewSession replaces an expired session: initialize is replayed (its
// response is not handed to the client again) and must answer exactly as
// before, then notifications/initialized is sent.
func (t *HTTP) renewSession(expired string) error {
	t.mu.Lock()
	if t.session != expired { // another request renewed it already
		t.mu.Unlock()
		return nil
	}
	initReq, initRes := t.initReq, t.initRes
	t.session = ""
	t.renewed++
	t.mu.Unlock()
	if initReq == nil {
		return fmt.Errorf("remote server %s: session expired before it was initialized", t.url)
	}
	req, err := http.NewRequestWithContext(t.ctx, http.MethodPost, t.url, bytes.NewReader(initReq))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, vs := range t.spec.Header {
		req.Header[k] = vs
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("remote server %s: renewing the expired session: %w", t.url, unwrapURLError(err))
	}
	defer drain(resp.Body)
	res, err := t.renewAnswer(resp)
	if err != nil {
		return fmt.Errorf("remote server %s: the session expired (HTTP 404) and a new one could not be started: %w", t.url, err)
	}
	if !bytes.Equal(res.Result, initRes) {
		return fmt.Errorf("remote server %s: the session expired (HTTP 404) and the new session's InitializeResult differs from the first one; run the command again", t.url)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if !validSessionID(sid) {
		return fmt.Errorf("remote server %s: the renewed session has no valid Mcp-Session-Id", t.url)
	}
	t.mu.Lock()
	t.session = sid
	t.mu.Unlock()
	note, _ := encodeRequest(nil, "notifications/initialized", nil)
	nm, _ := Decode(note)
	return t.post(note, nm, false)
}

// renewAnswer reads the InitializeResult of a replayed initialize (JSON or
// the first response event of an SSE stream).
func (t *HTTP) renewAnswer(resp *http.Response) (*Message, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var body []byte
	var err error
	if ct == "text/event-stream" {
		r := newSSEReader(resp.Body, t.max)
		for body == nil && err == nil {
			var ev *sseEvent
			if ev, err = r.next(); err == nil && (ev.Type == "" || ev.Type == "message") {
				if m, derr := Decode(ev.Data); derr == nil && m.IsResponse() {
					body = ev.Data
				}
			}
		}
	} else {
		body, err = readCapped(resp.Body, t.max)
	}
	if err != nil {
		return nil, err
	}
	m, err := Decode(body)
	if err != nil {
		return nil, err
	}
	if m.Result == nil {
		return nil, errors.New("initialize failed")
	}
	return m, nil
}

// HTTPStatusError is a request the server refused with an HTTP error status.
// RPC holds the JSON-RPC error its body carried, if any (errors.As finds it).
type HTTPStatusError struct {
	URL    string
	Status int
	Body   string // quoted, truncated
	RPC    *Error
}

func (e *HTTPStatusError) Error() string {
	if e.RPC != nil {
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.RPC)
	}
	return fmt.Sprintf("remote server %s answered HTTP %d %s", e.URL, e.Status, e.Body)
}

func (e *HTTPStatusError) Unwrap() error {
	if e.RPC != nil {
		return e.RPC
	}
	return nil
}

// statusError turns an HTTP error status into the failure of m's call (the
// session goes on: a legacy server refuses server/discover this way).
func (t *HTTP) statusError(resp *http.Response, m *Message) error {
	body, _ := readCapped(resp.Body, 64<<10)
	se := &HTTPStatusError{URL: t.url, Status: resp.StatusCode, Body: quoted(string(body), 200)}
	if rm, err := Decode(body); err == nil && rm.Error != nil {
		se.RPC = rm.Error
	}
	if !m.IsRequest() || t.callFailed == nil {
		return se
	}
	t.callFailed(m.ID, se)
	return nil
}

// AuthError is a server that wants credentials mcpsum was not given.
type AuthError struct {
	URL       string
	Status    int
	Challenge string // the WWW-Authenticate header, quoted
	Header    string // the same, raw (untrusted: never print it)
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("remote server %s answered HTTP %d: it needs credentials. Pass them from an environment variable with --header NAME=ENVVAR (for example --header Authorization=MY_TOKEN with MY_TOKEN='Bearer …' exported)", e.URL, e.Status)
	if e.Challenge != "" && e.Challenge != `""` {
		msg += "; it asked with WWW-Authenticate: " + e.Challenge
	}
	return msg
}

func readCapped(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("a message longer than the %s limit", sizeString(max))
	}
	return b, nil
}

func drain(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

func what(m *Message) string {
	if m == nil {
		return "the GET stream"
	}
	if m.Method != "" {
		return strconv.Quote(m.Method)
	}
	return "a response"
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
