package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/upstream"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Reading the server's stdout without holding whole messages. Lines that fit
// the window (256 KiB) are handled in place, without a copy. A longer line
// that is the result of a forwarded call, with its id before the result (as
// go-sdk and most servers write it), is streamed to the client as it
// arrives: the head with the id rewritten, then the rest chunk by chunk. So a
// multi-megabyte result costs neither memory nor a pass of its own, and the
// client starts reading it while the server is still writing. Other long
// lines (the proxy's own list pages, a server writing the id last) are
// collected up to the line limit and handled like short ones.

// window is the size of the read buffer over the server's stdout.
const window = 256 << 10

// longPipe is the size the pipes on both sides are grown to at the first
// line longer than the window (jsonline.GrowPipe): a session that never
// carries one keeps the kernel's default.
const longPipe = window

// keepAcc is the largest collect buffer kept between long lines.
const keepAcc = 4 << 20

// streamReader frames the server's stdout.
type streamReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	max        int
	acc        []byte
	ended      bool // the last consume reached the end of the line
	grown      bool // the pipes were grown (growPipes)
}

// growPipes grows the pipe from the server (if r reads one) and the one
// to the client (if out writes one) to longPipe, once per session.
func (s *streamReader) growPipes(out *jsonline.Writer) {
	if s.grown {
		return
	}
	s.grown = true
	if g, ok := s.r.(interface{ GrowPipe(size int) bool }); ok {
		g.GrowPipe(longPipe)
	}
	out.GrowPipe(longPipe)
}

// readServerStream reads the server until its stdout ends; it returns the
// reason (io.EOF, a read error, or a *mcpwire.LineTooLongError).
func (p *Proxy) readServerStream(r io.Reader, max int) error {
	if max <= 0 {
		max = mcpspec.MaxMessage
	}
	s := &streamReader{r: r, buf: make([]byte, window), max: max}
	// The reader holds p.srvIn while it holds any part of a line: a
	// message an upstream hands over directly (takeServer) waits until the
	// line before it was handled, and never lands inside one.
	p.srvIn.Lock()
	defer p.srvIn.Unlock()
	for {
		if i := bytes.IndexByte(s.buf[s.start:s.end], '\n'); i >= 0 {
			line := trimLine(s.buf[s.start : s.start+i])
			s.start += i + 1
			if len(line) > 0 {
				if len(line) > max {
					return &mcpwire.LineTooLongError{Max: max}
				}
				p.fromServer(line)
			}
			continue
		}
		if s.start > 0 {
			s.end = copy(s.buf, s.buf[s.start:s.end])
			s.start = 0
		}
		if s.end < len(s.buf) {
			empty := s.end == 0
			if empty {
				p.srvIn.Unlock()
			}
			n, err := s.r.Read(s.buf[s.end:])
			if empty {
				p.srvIn.Lock()
			}
			s.end += n
			if err != nil && n == 0 {
				if line := trimLine(s.buf[:s.end]); len(line) > 0 && !errors.As(err, new(*upstream.OverflowError)) {
					p.fromServer(line) // a last line without a newline
				}
				return err
			}
			continue
		}
		if err := p.longLine(s); err != nil {
			return err
		}
	}
}

// takeServer is a Direct upstream's way in (upstream.Direct): one whole
// small message of the server, handled on the caller's goroutine in turn
// with the reader's lines.
func (p *Proxy) takeServer(line []byte) bool {
	if len(line) > p.lineMax() || bytes.IndexByte(line, '\n') >= 0 {
		return false // as a line of its own in Messages: too long, or two lines
	}
	line = trimLine(line)
	p.srvIn.Lock()
	defer p.srvIn.Unlock()
	if len(line) > 0 {
		p.fromServer(line)
	}
	return true
}

func trimLine(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(bytes.Trim(b, " \t\r")) == 0 {
		return nil
	}
	return b
}

// longLine handles a line that filled the window: stream it, drop it, or
// collect it.
func (p *Proxy) longLine(s *streamReader) error {
	s.growPipes(p.out)
	head := s.buf[:s.end]
	pre, ok := jsonline.ScanPrefix(head)
	if ok && pre.Open == "result" && pre.Env.ID.OK() && pre.OnlyEnvelope() {
		c, drop := p.takeForStream(pre.Env.ID.Of(head))
		switch {
		case drop:
			return s.consume(nil)
		case c != nil:
			return p.streamResult(s, pre, c)
		}
	}
	acc := append(s.acc[:0], head...)
	s.end = 0
	if err := s.consume(func(b []byte) error {
		if len(acc)+len(b) > s.max {
			return &mcpwire.LineTooLongError{Max: s.max}
		}
		acc = append(acc, b...)
		return nil
	}); err != nil {
		return err
	}
	if line := trimLine(acc); len(line) > 0 {
		p.fromServer(line)
	}
	if cap(acc) <= keepAcc {
		s.acc = acc[:0]
	} else {
		s.acc = nil
	}
	return nil
}

// consume passes the rest of the current line (without the newline) to fn
// chunk by chunk (nil fn: discard), and keeps what follows it in the window.
// An error from fn stops it; ended says whether the line's end had been
// read (what follows it is kept all the same).
func (s *streamReader) consume(fn func([]byte) error) error {
	s.start, s.end, s.ended = 0, 0, false
	for {
		n, err := s.r.Read(s.buf)
		if n > 0 {
			chunk := s.buf[:n]
			i := bytes.IndexByte(chunk, '\n')
			if i >= 0 {
				chunk = chunk[:i]
			}
			var ferr error
			if fn != nil {
				ferr = fn(chunk)
			}
			if i >= 0 {
				s.end = copy(s.buf, s.buf[i+1:n])
				s.ended = true
				return ferr
			}
			if ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return &readError{err}
		}
	}
}

// takeForStream decides about a long response with id: the call to stream
// it to (forgotten as answered), or drop for a response nobody waits for
// (a cancelled call). The proxy's own calls and calls being bridged get
// neither: their responses are collected.
func (p *Proxy) takeForStream(id []byte) (c *call, drop bool) {
	u, ok := parseID(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	c = p.ids.Pending(u)
	switch {
	case !ok || c == nil:
		return nil, true
	case c.Own != nil || c.upReq != nil:
		return nil, false
	}
	p.ids.TakeForStream(u, c) // answered once streamResult has written it (finish waits)
	return c, false
}

// streamResult writes a long result to the client while it arrives, as
// exactly one checked JSON-RPC message: the head without its id member
// (and for a 2026-07-28 client of a legacy server with resultType inserted
// first in the result), then every chunk up to the newline through the
// tracker, which checks the JSON, stops at the end of the message and puts
// the locked serverInfo in the result's _meta; then the client's id and the
// closing brace. The id goes last so that a line that cannot be finished —
// over the line limit, a server that stalls mid-line, broken JSON, data
// after the message — still ends as valid JSON under an id no client uses
// ("mcpsum-void-..."), which clients ignore, followed by a proper error for
// the call. The client writer is held only while a chunk is written, never
// across a read from the server: the proxy's own answers meanwhile wait in
// the writer's queue (bounded) and follow the line.
func (p *Proxy) streamResult(s *streamReader, pre jsonline.Prefix, c *call) error {
	defer func() {
		p.ids.Streamed()
	}()
	head := s.buf[:s.end]
	env := pre.Env
	total := len(head)
	discard := func() error {
		return s.consume(func(b []byte) error {
			if total += len(b); total > s.max {
				return &mcpwire.LineTooLongError{Max: s.max}
			}
			return nil
		})
	}
	if e := p.opts.Hooks.BeforeResult(c.info, ResultInfo{Streamed: true}); e != nil {
		p.replyErr(c.ClientID, e.rpc())
		return discard()
	}
	t := jsonline.NewTracker(pre.Keys, p.srv.lock.ServerInfo)
	// A 2026-07-28 server's input_required cannot be checked or bridged
	// while it streams: the tracker cuts it and the call fails.
	if p.srv.upEra == lockfile.EraModern {
		t.RefuseInput()
	}
	if !c.modern && p.srv.upEra == lockfile.EraModern {
		t.ForLegacy() // the client's own era's fields only
	}
	ls := p.out.Begin(t, c.ClientID)
	ls.Raw(jsonline.Concat(head[:pre.IDKey], head[pre.AfterID:env.Result.Start])) // one write
	rest := head[env.Result.Start:]
	if c.modern && p.srv.upEra == lockfile.EraLegacy && head[env.Result.Start] == '{' {
		// Legacy servers never send resultType; the cache hints of a
		// streamed resources/read are left out (clients read absent as 0).
		ls.Feed(rest[:1])
		ls.Raw([]byte(`"resultType":"complete",`))
		t.TypeInserted()
		rest = rest[1:]
	}
	stall := p.stallTimeout()
	fail := func(err error) error { // the line cannot be finished
		if ls.Abort(p.voidID) {
			p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the server's response to this call was not forwarded: %v", err)})
		}
		return err
	}
	if err := ls.Feed(rest); err != nil {
		if errors.Is(err, jsonline.ErrStreamedInput) {
			fail(err)
			return discard()
		}
		ferr := &FramingError{Server: p.opts.Name, Err: err}
		fail(err)
		p.fail(ferr)
		return ferr
	}
	var stalled atomic.Bool
	watchdog := time.AfterFunc(stall, func() {
		err := &StallError{Server: p.opts.Name, After: stall}
		if ls.Abort(p.voidID) {
			stalled.Store(true)
			p.replyErr(c.ClientID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: " + err.Error()})
			p.fail(err)
		}
	})
	defer watchdog.Stop()
	err := s.consume(func(b []byte) error {
		// The bound is on the server's silence: a client slow to take a
		// chunk does not count.
		watchdog.Stop()
		defer watchdog.Reset(stall)
		if total += len(b); total > s.max {
			return &mcpwire.LineTooLongError{Max: s.max}
		}
		return ls.Feed(b)
	})
	ended := s.ended
	if err == nil {
		if !t.Ended() {
			err = errors.New("the line ended inside the message")
		}
	}
	switch {
	case stalled.Load():
		return &StallError{Server: p.opts.Name, After: stall}
	case err == nil:
		ls.Finish(append(append([]byte(`,"id":`), c.ClientID...), '}'))
		return nil
	case errors.Is(err, jsonline.ErrStreamedInput):
		// Cut unchecked: the call gets an error, the session goes on.
		fail(err)
		if ended {
			return nil
		}
		total = 0
		return discard()
	case errors.Is(err, mcpwire.ErrLineTooLong):
		// Too big, not broken: the call gets an error, the session goes on.
		fail(fmt.Errorf("it is longer than the %s line limit", termtext.Size(s.max)))
		if ended {
			return nil
		}
		total = 0
		return s.consume(nil)
	case ended || isJSONError(err):
		// Broken JSON or data after the message: the server broke the
		// framing. The call gets an error and the session fails.
		ferr := &FramingError{Server: p.opts.Name, Err: err}
		fail(err)
		p.fail(ferr)
		return ferr
	}
	fail(err) // a read error: the server is gone
	return err
}

func isJSONError(err error) bool {
	var le *mcpwire.LineTooLongError
	return !errors.As(err, &le) && !errors.Is(err, io.EOF) && !errors.Is(err, jsonline.ErrAborted) && !errors.Is(err, jsonline.ErrStreamedInput) && !isReadError(err)
}

// readError wraps errors of the server's stdout (not of the JSON).
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

func isReadError(err error) bool {
	var re *readError
	return errors.As(err, &re)
}

func (p *Proxy) stallTimeout() time.Duration {
	if p.opts.StallTimeout > 0 {
		return p.opts.StallTimeout
	}
	return p.answerTimeout()
}

func (e *StallError) Error() string {
	return fmt.Sprintf("server %q stopped writing in the middle of a message for %s; mcpsum ended the session", e.Server, e.After)
}

func (e *FramingError) Error() string {
	return fmt.Sprintf("server %q wrote a line that is not exactly one JSON-RPC message (%v); mcpsum forwarded none of the rest and ended the session", e.Server, e.Err)
}

func (e *FramingError) Unwrap() error { return e.Err }
