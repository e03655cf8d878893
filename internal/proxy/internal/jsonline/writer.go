package jsonline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// smallWrite is the size up to which a message is assembled in one buffer and
// written with a single write; larger ones go out piece by piece (no copy of
// a multi-megabyte body just to change its id).
const smallWrite = 64 << 10

// Writer writes one message per line to a peer. Writers hold the mutex
// for the whole message, so messages never interleave: a slow reader blocks
// the writer, which stops reading from the other side, so memory stays
// bounded by one message per direction (backpressure). While a streamed
// line is in progress (Begin), whole messages from other writers wait in a
// bounded queue instead, and follow the line when it ends: the stream holds
// the mutex only while it writes a chunk, never while it waits for the
// server.
type Writer struct {
	mu   sync.Mutex
	cond *sync.Cond
	w    io.Writer
	buf  []byte
	err  error // sticky: the peer is gone

	streaming bool
	queue     [][]byte
	queued    int
}

// maxQueued bounds the bytes of messages waiting for a streamed line.
const maxQueued = 1 << 20

// NewWriter writes lines to w.
func NewWriter(w io.Writer) *Writer {
	lw := &Writer{w: w}
	lw.cond = sync.NewCond(&lw.mu)
	return lw
}

// WriteLine sends the concatenation of parts followed by "\n".
func (lw *Writer) WriteLine(parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	for lw.streaming && lw.queued > 0 && lw.queued+n > maxQueued {
		lw.cond.Wait()
	}
	if lw.err != nil {
		return lw.err
	}
	if lw.streaming {
		lw.queue = append(lw.queue, append(Concat(parts...), '\n'))
		lw.queued += n + 1
		return nil
	}
	if n <= smallWrite {
		buf := lw.buf[:0]
		for _, p := range parts {
			buf = append(buf, p...)
		}
		buf = append(buf, '\n')
		_, lw.err = lw.w.Write(buf)
		lw.buf = buf[:0]
		return lw.err
	}
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if _, lw.err = lw.w.Write(p); lw.err != nil {
			return lw.err
		}
	}
	_, lw.err = lw.w.Write(Newline)
	return lw.err
}

// GrowPipe grows the pipe the lines go to, if they go to one (GrowPipe).
func (lw *Writer) GrowPipe(size int) bool {
	f, ok := lw.w.(*os.File)
	return ok && GrowPipe(f, size)
}

// Newline is the line end of every message.
var Newline = []byte{'\n'}

// ErrAborted is a streamed line's error after Abort ended it.
var ErrAborted = errors.New("the line was ended early")

// Stream is one streamed line in progress.
type Stream struct {
	lw   *Writer
	t    *Tracker
	over bool // finished or aborted
}

// Router is an io.Writer under a Writer that routes messages itself (a
// client over HTTP: each answer goes to the request that asked). Whole
// messages it can read when their line ends; a streamed line's id comes
// last, so Begin tells it first which request the line answers.
type Router interface {
	io.Writer
	// Streaming says that the next line written is a streamed answer to
	// the request id (a JSON value, the caller's: copy it to keep it).
	Streaming(id []byte)
}

// Begin starts a streamed line checked by t, the answer to request id;
// other messages queue until it ends (Finish or Abort).
func (lw *Writer) Begin(t *Tracker, id []byte) *Stream {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.streaming = true
	if r, ok := lw.w.(Router); ok && lw.err == nil {
		r.Streaming(id)
	}
	return &Stream{lw: lw, t: t}
}

func (lw *Writer) put(b []byte) {
	if lw.err == nil && len(b) > 0 {
		if _, err := lw.w.Write(b); err != nil {
			lw.err = fmt.Errorf("write to the client: %w", err)
		}
	}
}

// Raw writes b unchecked (the head the proxy scanned itself).
func (ls *Stream) Raw(b []byte) {
	ls.lw.mu.Lock()
	defer ls.lw.mu.Unlock()
	if !ls.over {
		ls.lw.put(b)
	}
}

// Feed checks b with the tracker and writes what it lets through.
func (ls *Stream) Feed(b []byte) error {
	ls.lw.mu.Lock()
	defer ls.lw.mu.Unlock()
	if ls.over {
		return ErrAborted
	}
	return ls.t.Feed(b, ls.lw.put)
}

// Finish ends the line with tail and a newline (one write).
func (ls *Stream) Finish(tail []byte) {
	ls.lw.mu.Lock()
	defer ls.lw.mu.Unlock()
	if !ls.over {
		ls.end(tail)
	}
}

// Abort ends the line as valid JSON under the id void (nothing else the
// server sends on this line is written); false when it had ended already.
func (ls *Stream) Abort(void []byte) bool {
	ls.lw.mu.Lock()
	defer ls.lw.mu.Unlock()
	if ls.over {
		return false
	}
	b := ls.t.Closer()
	b = append(append(append(b, `,"id":`...), void...), '}')
	ls.end(b)
	return true
}

// end writes tail and the newline in one write, then the queued messages
// (lw.mu held).
func (ls *Stream) end(tail []byte) {
	ls.over = true
	lw := ls.lw
	lw.put(append(tail[:len(tail):len(tail)], '\n'))
	for _, m := range lw.queue {
		lw.put(m)
	}
	lw.queue, lw.queued, lw.streaming = nil, 0, false
	lw.cond.Broadcast()
}

// ReaderGone reports whether nobody reads the lines any more: the writer
// says so itself (a Gone method: a client over HTTP that ended its
// session), or it is a pipe or a socket whose reading end closed
// (peer_unix.go; false where that cannot be told).
func (lw *Writer) ReaderGone() bool {
	if g, ok := lw.w.(interface{ Gone() bool }); ok {
		return g.Gone()
	}
	return readerGone(lw.w)
}

// Failed reports the sticky write error, if any.
func (lw *Writer) Failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// EscapedLines is an io.Writer that turns a server's raw stderr into escaped
// lines with a prefix, so nothing a server prints can reach a terminal raw.
type EscapedLines struct {
	mu      sync.Mutex
	out     io.Writer
	prefix  string
	cur     []byte
	lines   uint64        // lines written so far
	changed chan struct{} // closed (and replaced) when a line is written
}

const maxStderrLine = 4096

// NewEscapedLines writes each line to out, quoted, after prefix.
func NewEscapedLines(out io.Writer, prefix string) *EscapedLines {
	return &EscapedLines{out: out, prefix: prefix, changed: make(chan struct{})}
}

// Lines is how many lines were written so far, and a channel closed when
// the next one is.
func (e *EscapedLines) Lines() (uint64, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lines, e.changed
}

func (e *EscapedLines) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxStderrLine - len(e.cur); room > 0 {
			e.cur = append(e.cur, chunk[:min(room, len(chunk))]...)
		}
		if i < 0 {
			break
		}
		e.flushLine()
		p = p[i+1:]
	}
	return n, nil
}

func (e *EscapedLines) flushLine() {
	line := bytes.TrimSuffix(e.cur, []byte("\r"))
	e.cur = e.cur[:0]
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	q, _ := termtext.Quote(string(line))
	io.WriteString(e.out, e.prefix+q+"\n")
	e.lines++
	close(e.changed)
	e.changed = make(chan struct{})
}

// Flush writes a pending partial line.
func (e *EscapedLines) Flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.cur) > 0 {
		e.flushLine()
	}
}
