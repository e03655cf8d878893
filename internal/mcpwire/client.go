package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

// Caller sends one request and returns its raw result. A JSON-RPC error reply
// comes back as an error wrapping *Error.
type Caller interface {
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// ClientOptions configure a Client. The zero value is usable.
type ClientOptions struct {
	// Timeout bounds each Call (0: only the context bounds it).
	Timeout time.Duration
	// StartTimeout is the start-up allowance: until the server has written
	// its first line on stdout, a Call may wait until StartTimeout after the
	// client was created, if that is later than Timeout from the call (a
	// first `npx` run downloads the package before the server can answer).
	// 0: no separate allowance.
	StartTimeout time.Duration
	// DeclareNone makes Handshake declare no client capabilities ({}) in
	// initialize and in the session's 2026-07-28 _meta instead of mcpsum's
	// set: how mcpsum locked before it declared that set (pin uses it to
	// tell such a lock's reviewer why a server now shows more).
	DeclareNone bool
	// Handle, if set, sees every message that is not a reply to one of the
	// client's own calls — server→client requests, notifications, responses to
	// ids the client did not issue — with the original line. Returning true
	// means "handled": the client then does not answer a request itself. It
	// runs on the reader goroutine and must not block. The client's own ids
	// are positive JSON integers; a forwarder should use string ids.
	Handle func(line []byte, m *Message) bool
	// Trace, if set, sees every line sent ("send") and received ("recv"),
	// before any processing. It may be called from several goroutines at
	// once and must not keep or modify line.
	Trace func(dir string, line []byte)
}

// maxNoteMethods bounds the distinct notification methods a Client counts
// (a server flooding made-up methods cannot grow the map without end).
const maxNoteMethods = 64

// ErrClosed is the error of calls made or pending when the client was closed.
var ErrClosed = errors.New("mcp client closed")

// Client is a JSON-RPC client over a Transport (a Stdio or HTTP): increasing integer ids, a reader
// goroutine dispatching replies, and prompt answers to the server's own
// legacy requests (ping → {}, roots/list → {"roots":[]}, elicitation/create →
// decline, sampling/createMessage → error -1, anything else → -32601), so a
// server never waits on mcpsum for the capabilities it declares.
type Client struct {
	t    Transport
	opts ClientOptions
	next atomic.Int64

	created time.Time
	spoke   atomic.Bool // the server has written a line on stdout

	mu        sync.Mutex
	pending   map[int64]chan *Message
	abandoned map[int64]bool     // calls that timed out or were cancelled
	late      map[int64]*Message // replies that came after that
	notes     map[string]int     // notifications seen, by method
	err       error              // why the session ended; nil while it runs
	closed    bool
	dead      chan struct{}
}

// NewClient starts reading the server's messages (a *Stdio's stdout, or
// an *HTTP endpoint's answers). The client owns t from now on: Close stops it.
func NewClient(t Transport, opts *ClientOptions) *Client {
	c := &Client{
		t:         t,
		pending:   map[int64]chan *Message{},
		abandoned: map[int64]bool{},
		late:      map[int64]*Message{},
		notes:     map[string]int{},
		dead:      make(chan struct{}),
		created:   time.Now(),
	}
	if opts != nil {
		c.opts = *opts
	}
	if h, ok := t.(*HTTP); ok {
		h.callFailed = c.failCall
	}
	go c.readLoop()
	go c.watchExit()
	return c
}

// failCall ends one pending call with a transport's error (the server
// refused that one request, for example with an HTTP error status).
func (c *Client) failCall(id json.RawMessage, err error) {
	if _, ok := intID(id); !ok {
		return
	}
	c.deliver(&Message{ID: id, failed: err})
}

func (c *Client) validatesJSON() {}

// Transport returns what the client talks over.
func (c *Client) Transport() Transport { return c.t }

// Timeout returns the per-call timeout.
func (c *Client) Timeout() time.Duration { return c.opts.Timeout }

// Done is closed when the session has ended (Err then says why).
func (c *Client) Done() <-chan struct{} { return c.dead }

// Err is nil while the session runs, then the reason it ended.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Notifications returns how many notifications of each method arrived.
func (c *Client) Notifications() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.notes))
	for k, v := range c.notes {
		out[k] = v
	}
	return out
}

// Close ends the session and stops the server (see process.Process.Stop).
func (c *Client) Close(grace time.Duration) error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.fail(ErrClosed)
	if st, ok := c.t.(interface {
		StopTerm(grace, termGrace time.Duration) error
	}); ok && !c.spoke.Load() {
		return st.StopTerm(grace, max(grace, SilentStopGrace))
	}
	return c.t.Stop(grace)
}

// SilentStopGrace is how long a server that has written nothing on stdout
// yet gets to end after SIGTERM: it may be a package manager still
// installing it (npx, uvx), which rolls back cleanly on SIGTERM, while
// SIGKILL mid-install leaves its cache half-written (every later start of
// the package then fails until the folder is removed).
const SilentStopGrace = 10 * time.Second

// Call sends a request and waits for its reply, the context, the client's
// timeout or the end of the session, whichever comes first.
func (c *Client) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	_, res, err := c.call(ctx, method, params)
	return res, err
}

func (c *Client) call(ctx context.Context, method string, params json.RawMessage) (int64, json.RawMessage, error) {
	id := c.next.Add(1)
	ch := make(chan *Message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return id, nil, fmt.Errorf("%s: %w", method, err)
	}
	c.pending[id] = ch
	c.mu.Unlock()

	line, err := encodeRequest(strconv.AppendInt(nil, id, 10), method, params)
	if err == nil {
		err = c.Send(line)
	}
	if err != nil {
		c.forget(id, false)
		if process.WaitChan(c.dead, 2*time.Second) { // a write to a dead server: say why it died
			err = c.Err()
		}
		return id, nil, fmt.Errorf("%s: %w", method, err)
	}
	var timeout <-chan time.Time
	wait := c.callTimeout()
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case m := <-ch:
		if m == nil {
			return id, nil, fmt.Errorf("%s: %w", method, c.Err())
		}
		if m.failed != nil {
			return id, nil, fmt.Errorf("%s: %w", method, m.failed)
		}
		if m.Error != nil {
			return id, nil, fmt.Errorf("%s: %w", method, m.Error)
		}
		return id, m.Result, nil
	case <-ctx.Done():
		c.forget(id, true)
		return id, nil, fmt.Errorf("%s: %w", method, ctx.Err())
	case <-timeout:
		c.forget(id, true)
		return id, nil, &TimeoutError{Method: method, After: wait, Silent: !c.spoke.Load(), StartTimeout: c.opts.StartTimeout, Stderr: c.t.StderrTail()}
	}
}

func (c *Client) forget(id int64, abandoned bool) {
	c.mu.Lock()
	delete(c.pending, id)
	if abandoned {
		c.abandoned[id] = true
	}
	c.mu.Unlock()
}

// lateReply returns a reply that arrived after call id was abandoned.
func (c *Client) lateReply(id int64) *Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.late[id]
}

// Notify sends a notification.
func (c *Client) Notify(method string, params json.RawMessage) error {
	line, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	return c.Send(line)
}

// Send writes one raw message line (for example a forwarded one).
func (c *Client) Send(line []byte) error {
	if c.opts.Trace != nil {
		c.opts.Trace("send", line)
	}
	if err := c.t.WriteMessage(line); err != nil {
		return fmt.Errorf("write to server %q: %w", c.t.Label(), err)
	}
	return nil
}

// encodeRequest builds a request (id != nil) or notification line.
func encodeRequest(id []byte, method string, params json.RawMessage) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	b = append(append(b, `,"method":`...), m...)
	if len(params) > 0 {
		if bytes.IndexByte(params, '\n') >= 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, params); err != nil {
				return nil, fmt.Errorf("%s: params are not valid JSON: %w", method, err)
			}
			params = buf.Bytes()
		}
		b = append(append(b, `,"params":`...), params...)
	}
	return append(b, '}'), nil
}

func (c *Client) readLoop() {
	for {
		line, err := c.t.ReadMessage()
		if err != nil {
			c.fail(err)
			return
		}
		c.spoke.Store(true)
		if c.opts.Trace != nil {
			c.opts.Trace("recv", line)
		}
		m, err := Decode(line)
		if err != nil {
			c.fail(c.notMessage(err))
			return
		}
		c.dispatch(line, m)
	}
}

func (c *Client) notMessage(err error) error {
	if _, ok := c.t.(*Stdio); ok {
		return fmt.Errorf("server %q wrote something other than an MCP message on stdout (stdout must carry only JSON-RPC lines; logs belong on stderr): %w", c.t.Label(), err)
	}
	return fmt.Errorf("server %q sent something other than an MCP message: %w", c.t.Label(), err)
}

// watchExit ends the session when the child exits but something else (a
// grandchild) keeps its stdout open, so calls do not wait for their timeout.
func (c *Client) watchExit() {
	select {
	case <-c.dead:
		return
	case <-c.t.Exited():
	}
	if !process.WaitChan(c.dead, time.Second) { // let the reader drain what was written before the exit
		c.fail(c.t.ExitReason())
	}
}

// fail ends the session once; pending calls get err.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if c.closed {
		err = ErrClosed
	}
	c.err = err
	for id, ch := range c.pending {
		ch <- nil
		delete(c.pending, id)
	}
	close(c.dead)
}

func (c *Client) dispatch(line []byte, m *Message) {
	switch {
	case m.IsResponse():
		if c.deliver(m) {
			return
		}
		if c.opts.Handle != nil {
			c.opts.Handle(line, m)
		}
	case m.IsRequest():
		if c.opts.Handle != nil && c.opts.Handle(line, m) {
			return
		}
		c.answer(m)
	case m.IsNotification():
		c.mu.Lock()
		if _, seen := c.notes[m.Method]; seen || len(c.notes) < maxNoteMethods {
			c.notes[m.Method]++
		}
		c.mu.Unlock()
		if c.opts.Handle != nil {
			c.opts.Handle(line, m)
		}
	}
}

// deliver hands a reply to its pending call. A reply with a null id and an
// error (the server could not parse a request) goes to the only pending call,
// if exactly one is pending.
func (c *Client) deliver(m *Message) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := m.IntID()
	if !ok && string(m.ID) == "null" && m.Error != nil && len(c.pending) == 1 {
		for k := range c.pending {
			id, ok = k, true
		}
	}
	if !ok {
		return false
	}
	if ch, found := c.pending[id]; found {
		delete(c.pending, id)
		ch <- m
		return true
	}
	if c.abandoned[id] {
		c.late[id] = m
		return true
	}
	return false
}

// answer replies to a server→client request mcpsum does not forward.
func (c *Client) answer(m *Message) {
	b := append(append([]byte(`{"jsonrpc":"2.0","id":`), m.ID...), ',')
	switch m.Method {
	case "ping":
		b = append(b, `"result":{}}`...)
	case "roots/list": // no roots: servers keep the folders their argv names
		b = append(b, `"result":{"roots":[]}}`...)
	case "elicitation/create":
		b = append(b, `"result":{"action":"decline"}}`...)
	case "sampling/createMessage": // -1: the request was declined (the spec's code for a refused sampling request)
		b = append(b, `"error":{"code":-1,"message":"mcpsum does not sample: it only lists what the server offers"}}`...)
	default:
		b = append(b, `"error":{"code":-32601,"message":"Method not found"}}`...)
	}
	c.Send(b) // a failed write ends the session through the reader
}
