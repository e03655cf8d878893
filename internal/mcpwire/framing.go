package mcpwire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// readBufSize is the size of the bufio.Reader behind a LineReader. Lines that fit
// are copied once, straight out of it; longer lines are assembled in a scratch
// buffer that is reused from line to line.
const readBufSize = 64 << 10

// keepScratch is the largest scratch buffer a LineReader keeps between lines.
const keepScratch = 16 << 20

// ErrLineTooLong is matched (errors.Is) by the *LineTooLongError a LineReader
// returns when a line exceeds its maximum.
var ErrLineTooLong = errors.New("line too long")

// LineTooLongError reports a message line longer than the configured maximum.
type LineTooLongError struct{ Max int }

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("message line longer than the %s limit; mcpsum has no setting that raises it (no MCP client takes messages this large: go-sdk's own limit is 16 MiB), so the server must send smaller messages", termtext.Size(e.Max))
}

// Is makes errors.Is(err, ErrLineTooLong) true.
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// LineReader splits a stream into newline-delimited messages. It is not safe
// for concurrent use.
type LineReader struct {
	br  *bufio.Reader
	max int
	acc []byte // scratch for lines longer than the bufio buffer; reused
	err error  // sticky
}

// NewLineReader returns a reader of lines of at most max bytes (not counting the
// line ending); max <= 0 means mcpspec.MaxMessage.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = mcpspec.MaxMessage
	}
	return &LineReader{br: bufio.NewReaderSize(r, readBufSize), max: max}
}

// Max reports the reader's line limit.
func (l *LineReader) Max() int { return l.max }

// Next returns the next non-blank line without its "\n" or "\r\n". The slice is
// freshly allocated with exactly the line's length and belongs to the caller: it
// stays valid after later calls, so it can be forwarded or kept as is.
// Lines holding only spaces, tabs or carriage returns are skipped. A final line
// without a newline is returned before io.EOF. After an error (io.EOF, a read
// error or a *LineTooLongError) every later call returns the same error.
func (l *LineReader) Next() ([]byte, error) {
	for {
		if l.err != nil {
			return nil, l.err
		}
		line, err := l.readLine()
		if err != nil {
			l.err = err
			if len(line) == 0 {
				return nil, err
			}
			// An unterminated last line: hand it out, the error comes next time.
		}
		line = trimCR(line)
		if isBlank(line) {
			continue
		}
		out := make([]byte, len(line))
		copy(out, line)
		return out, nil
	}
}

// readLine returns the bytes of one line (without "\n"), pointing into the
// bufio buffer or the scratch buffer; valid until the next call.
func (l *LineReader) readLine() ([]byte, error) {
	frag, err := l.br.ReadSlice('\n')
	if err == nil {
		if len(frag)-1 > l.max && len(trimCR(frag[:len(frag)-1])) > l.max {
			return nil, &LineTooLongError{Max: l.max}
		}
		return frag[:len(frag)-1], nil
	}
	if err != bufio.ErrBufferFull {
		if len(trimCR(frag)) > l.max {
			return nil, &LineTooLongError{Max: l.max}
		}
		return frag, err // io.EOF (maybe with a partial last line) or a read error
	}
	// A long line: collect it in the scratch buffer.
	acc := append(l.acc[:0], frag...)
	defer func() {
		if cap(acc) <= keepScratch {
			l.acc = acc[:0]
		} else {
			l.acc = nil // do not pin a huge buffer after a one-off giant line
		}
	}()
	for {
		if len(acc) > l.max+1 { // +1 leaves room for a "\r" before the "\n"
			return nil, &LineTooLongError{Max: l.max}
		}
		frag, err = l.br.ReadSlice('\n')
		if len(frag) > cap(acc)-len(acc) { // grow by doubling: fewer copies than append's 1.25x
			grown := make([]byte, len(acc), 2*cap(acc)+len(frag))
			copy(grown, acc)
			acc = grown
		}
		acc = append(acc, frag...)
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil:
			acc = acc[:len(acc)-1]
			if len(trimCR(acc)) > l.max {
				return nil, &LineTooLongError{Max: l.max}
			}
			return acc, nil
		default:
			if len(trimCR(acc)) > l.max {
				return nil, &LineTooLongError{Max: l.max}
			}
			return acc, err
		}
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// ErrNewlineInMessage is returned by LineWriter.Write for a message holding a raw
// newline, which would split it into two lines on the wire.
var ErrNewlineInMessage = errors.New("message contains a raw newline; it must be compact JSON on one line")

// LineWriter writes one message per line. It is safe for concurrent use: each
// message goes out in a single Write while a mutex is held, so lines from
// different goroutines never interleave.
type LineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewLineWriter returns a LineWriter writing to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Write writes line followed by "\n" in one Write call. A line containing "\n"
// is refused with ErrNewlineInMessage.
func (lw *LineWriter) Write(line []byte) error {
	if bytes.IndexByte(line, '\n') >= 0 {
		return ErrNewlineInMessage
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	buf := append(append(lw.buf[:0], line...), '\n')
	_, err := lw.w.Write(buf)
	if cap(buf) <= readBufSize {
		lw.buf = buf[:0] // keep small buffers; let huge ones go
	} else {
		lw.buf = nil
	}
	return err
}
