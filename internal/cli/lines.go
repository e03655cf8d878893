package cli

import (
	"bytes"
	"io"
)

// Lines is a writer for a long report: it passes whole lines on to W in
// writes of about 64 KiB instead of one write per line (show of a
// 1,000-tool lock made 6,000 write calls), and never cuts a line, so a
// writer below that looks at each write (redact.Writer) sees whole lines.
// Flush passes on what is left.
type Lines struct {
	W   io.Writer
	buf []byte
	err error
}

const linesChunk = 64 << 10

func (l *Lines) Write(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	l.buf = append(l.buf, p...)
	if len(l.buf) >= linesChunk {
		if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
			_, l.err = l.W.Write(l.buf[:i+1])
			l.buf = l.buf[:copy(l.buf, l.buf[i+1:])]
		}
	}
	return len(p), l.err
}

// Flush writes what is left.
func (l *Lines) Flush() error {
	if l.err == nil && len(l.buf) > 0 {
		_, l.err = l.W.Write(l.buf)
		l.buf = l.buf[:0]
	}
	return l.err
}
