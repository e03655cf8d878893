package proxy

import (
	"bytes"
	"io"
	"sync"

	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

// smallWrite is the size up to which a message is assembled in one buffer and
// written with a single write; larger ones go out piece by piece (no copy of
// a multi-megabyte body just to change its id).
const smallWrite = 64 << 10

// lineWriter writes one message per line to a peer. Writers hold the mutex
// for the whole message, so messages never interleave; there is no queue: a
// slow reader blocks the writer, which stops reading from the other side, so
// memory stays bounded by one message per direction (backpressure).
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error // sticky: the peer is gone
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: w} }

// write sends the concatenation of parts followed by "\n".
func (lw *lineWriter) write(parts ...[]byte) error {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
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
	_, lw.err = lw.w.Write(newline)
	return lw.err
}

var newline = []byte{'\n'}

// failed reports the sticky write error, if any.
func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// escapedLines is an io.Writer that turns a server's raw stderr into escaped
// lines with a prefix, so nothing a server prints can reach a terminal raw.
type escapedLines struct {
	mu     sync.Mutex
	out    io.Writer
	prefix string
	cur    []byte
}

const maxStderrLine = 4096

func newEscapedLines(out io.Writer, prefix string) *escapedLines {
	return &escapedLines{out: out, prefix: prefix}
}

func (e *escapedLines) Write(p []byte) (int, error) {
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

func (e *escapedLines) flushLine() {
	line := bytes.TrimSuffix(e.cur, []byte("\r"))
	e.cur = e.cur[:0]
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	q, _ := mcpwire.Quote(string(line))
	io.WriteString(e.out, e.prefix+q+"\n")
}

// Flush writes a pending partial line.
func (e *escapedLines) Flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.cur) > 0 {
		e.flushLine()
	}
}
