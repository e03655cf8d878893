package proxy

import (
	"bytes"
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
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

// keepAcc is the largest collect buffer kept between long lines.
const keepAcc = 4 << 20

// rawStdout is implemented by an mcpwire.Process that exposes its stdout as a
// plain reader (the streaming path); without it the proxy reads lines.
type rawStdout interface{ RawStdout() io.Reader }

// streamReader frames the server's stdout.
type streamReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	max        int
	acc        []byte
}

// readServerStream reads the server until its stdout ends; it returns the
// reason (io.EOF, a read error, or a *mcpwire.LineTooLongError).
func (p *Proxy) readServerStream(r io.Reader, max int) error {
	if max <= 0 {
		max = mcpwire.DefaultMaxLine
	}
	s := &streamReader{r: r, buf: make([]byte, window), max: max}
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
			n, err := s.r.Read(s.buf[s.end:])
			s.end += n
			if err != nil && n == 0 {
				if line := trimLine(s.buf[:s.end]); len(line) > 0 {
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
	head := s.buf[:s.end]
	env, open, ok := scanPrefix(head)
	if ok && open == "result" && env.id.ok() && !env.method.ok() && !env.errv.ok() {
		c, drop := p.takeForStream(env.id.of(head))
		switch {
		case drop:
			return s.consume(nil)
		case c != nil:
			return p.streamResult(s, env, c)
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
func (s *streamReader) consume(fn func([]byte) error) error {
	s.start, s.end = 0, 0
	for {
		n, err := s.r.Read(s.buf)
		if n > 0 {
			chunk := s.buf[:n]
			i := bytes.IndexByte(chunk, '\n')
			if i >= 0 {
				chunk = chunk[:i]
			}
			if fn != nil {
				if ferr := fn(chunk); ferr != nil {
					return ferr
				}
			}
			if i >= 0 {
				s.end = copy(s.buf, s.buf[i+1:n])
				return nil
			}
		}
		if err != nil {
			return err
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
	c = p.upPending[u]
	switch {
	case !ok || c == nil:
		return nil, true
	case c.own != nil || c.upReq != nil:
		return nil, false
	}
	p.dropCall(u, c)
	return c, false
}

// streamResult writes a long result to the client while it arrives: the
// head (id rewritten, and for a 2026-07-28 client of a legacy server
// resultType inserted first in the result), then every chunk
// up to the newline. The client writer is held throughout, so no other
// message can interleave.
func (p *Proxy) streamResult(s *streamReader, env envelope, c *call) error {
	head := s.buf[:s.end]
	var ins []byte
	if c.modern && p.srv.upEra == lockfile.EraLegacy && head[env.result.s] == '{' {
		// Legacy servers never send resultType; the cache hints of a
		// streamed resources/read are left out (clients read absent as 0)
		// because some legacy servers already send them and the rest of
		// the result is not scanned.
		ins = []byte(`"resultType":"complete",`)
	}
	total := len(head)
	if e := p.hooks.BeforeResult(c.info, ResultInfo{Streamed: true}); e != nil {
		p.replyErr(c.clientID, e.rpc())
		return s.consume(func(b []byte) error {
			if total += len(b); total > s.max {
				return &mcpwire.LineTooLongError{Max: s.max}
			}
			return nil
		})
	}
	return p.out.stream(func(w io.Writer) error {
		parts := [][]byte{head[:env.id.s], c.clientID, head[env.id.e:]}
		if ins != nil {
			parts = [][]byte{head[:env.id.s], c.clientID, head[env.id.e : env.result.s+1], ins, head[env.result.s+1:]}
		}
		for _, part := range parts {
			w.Write(part) // a write error is sticky; the line is still read to its end
		}
		err := s.consume(func(b []byte) error {
			if total += len(b); total > s.max {
				return &mcpwire.LineTooLongError{Max: s.max}
			}
			w.Write(b)
			return nil
		})
		w.Write(newline) // also ends a line the server broke off, before the error replies
		return err
	})
}

// scanPrefix scans the members of a message whose line is longer than b:
// the spans of the members that end inside b, and the key of the member
// whose value runs past it (ok false when b does not look like the start
// of a JSON-RPC object).
func scanPrefix(b []byte) (env envelope, open string, ok bool) {
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return env, "", false
	}
	i = jsonscan.SkipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke, err := jsonscan.SkipString(b, i)
		if err != nil {
			return env, "", false
		}
		key, err := jsonscan.Unquote(b[i:ke])
		if err != nil {
			return env, "", false
		}
		i = jsonscan.SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return env, "", false
		}
		vs := jsonscan.SkipWS(b, i+1)
		ve, err := jsonscan.SkipValue(b, vs)
		if err != nil || ve >= len(b) {
			if vs >= len(b) {
				return env, "", false
			}
			if key == "result" {
				env.result = span{vs, len(b)}
			}
			return env, key, true
		}
		if dst := env.slot(key); dst != nil {
			if dst.ok() {
				return env, "", false // a duplicate: let the full scan refuse it
			}
			*dst = span{vs, ve}
		}
		i = jsonscan.SkipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			i = jsonscan.SkipWS(b, i+1)
			continue
		}
		return env, "", false
	}
	return env, "", false
}

// stream runs fn with exclusive use of the underlying writer. Writes after
// a failure are dropped (the error is sticky) but fn still runs, so the
// caller can read the rest of its message; fn's own error is returned.
func (lw *lineWriter) stream(fn func(w io.Writer) error) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	sw := &stickyWriter{w: lw.w, err: lw.err}
	err := fn(sw)
	lw.err = sw.err
	return err
}

type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(b)
	if err != nil {
		s.err = fmt.Errorf("write to the client: %w", err)
	}
	return n, s.err
}
