package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
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
		return nil, fmt.Errorf("remote server URL %s: %w", termtext.Quoted(spec.URL, 200), err)
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

// post sends msg and reads its answer. renew allows one session renewal.
func (t *HTTP) post(msg []byte, m *Message, renew bool) error {
	req, err := http.NewRequestWithContext(t.ctx, http.MethodPost, t.url, bytes.NewReader(msg))
	if err != nil {
		return fmt.Errorf("remote server %s: %w", t.url, err)
	}
	t.mu.Lock()
	session := t.session
	t.mu.Unlock()
	modern := ModernHeaders(req.Header, m)
	if modern {
		session = ""
	}
	t.setHeaders(req.Header, session)
	if modern { // setHeaders may have put a legacy version back
		ModernHeaders(req.Header, m)
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
		return &AuthError{URL: t.url, Status: resp.StatusCode, Challenge: termtext.TruncateQuote(resp.Header.Get("WWW-Authenticate"), 300), Header: resp.Header.Get("WWW-Authenticate")}
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
	return fmt.Errorf("remote server %s answered %s with Content-Type %s (want application/json or text/event-stream)", t.url, what(m), termtext.Quoted(resp.Header.Get("Content-Type"), 100))
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
