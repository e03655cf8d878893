package mcphttp

import (
	"bytes"
	"errors"
	"io"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// envelope is what the client reads of a JSON-RPC message to route it: the
// members that say what it is, as raw bytes (subslices of the message),
// read with jsonscan's exact-key rule. Whether the message is a valid
// JSON-RPC message is the caller's check (its Sink); the client only
// routes: which request an answer ends, which session initialize began.
type envelope struct {
	id     []byte // raw ("1" and "\"1\"" differ); nil when absent
	method string
	params []byte
	result []byte
	failed bool // an error member (not null)
}

var errNotEnvelope = errors.New("not a JSON-RPC message (a JSON object with a string method, or a result or error)")

func readEnvelope(b []byte) (envelope, error) {
	f, err := jsonscan.Fields(b, "id", "method", "params", "result", "error")
	if err != nil {
		return envelope{}, err
	}
	e := envelope{id: f[0], params: f[2], result: f[3], failed: f[4] != nil && string(f[4]) != "null"}
	if f[1] != nil {
		var ok bool
		if e.method, ok = jsonscan.String(f[1]); !ok || e.method == "" {
			return envelope{}, errNotEnvelope
		}
	}
	if e.method == "" && e.result == nil && !e.failed {
		return envelope{}, errNotEnvelope
	}
	return e, nil
}

// request: a method and an id that is not null.
func (e *envelope) request() bool {
	return e.method != "" && e.id != nil && string(e.id) != "null"
}

// answers reports whether data is the response to the request m.
func answers(data []byte, m *envelope) (envelope, bool) {
	got, err := readEnvelope(data)
	if err != nil || got.method != "" || !bytes.Equal(got.id, m.id) {
		return got, false
	}
	return got, true
}

// what names a message in an error: its method, quoted, or "a response"
// (nil: the GET stream).
func what(m *envelope) string {
	switch {
	case m == nil:
		return "the GET stream"
	case m.method != "":
		return termtext.Quoted(m.method, 80)
	}
	return "a response"
}

// oneLine turns the line breaks of a JSON text into tabs: the same
// whitespace between tokens, and still invalid inside a string, so a
// message delivered as one line means what it meant. The line breaks that
// end the body (mcp-go's encoder ends every body with one) are its line's
// end, not part of the message: they are dropped, so the line carries the
// server's bytes and nothing more (bodyLines does the same for a body that
// streams).
func oneLine(b []byte) []byte { return oneLineAll(b[:len(b)-trailingBreaks(b)]) }

// trailingBreaks is the length of the run of "\r" and "\n" that ends b.
func trailingBreaks(b []byte) int {
	n := 0
	for n < len(b) && (b[len(b)-1-n] == '\n' || b[len(b)-1-n] == '\r') {
		n++
	}
	return n
}

// bodyLine is oneLine for a body written in chunks as it arrives: a run
// of line breaks at a chunk's end is held until more of the body follows
// (then it was inside the message and goes on as tabs) or the body ends
// (then it was its end and is dropped).
type bodyLine struct {
	w    io.Writer
	held []byte
}

func (l *bodyLine) Write(chunk []byte) (int, error) {
	n := trailingBreaks(chunk)
	if n == len(chunk) {
		l.held = append(l.held, chunk...)
		return len(chunk), nil
	}
	if len(l.held) > 0 {
		if _, err := l.w.Write(oneLineAll(l.held)); err != nil {
			return 0, err
		}
		l.held = l.held[:0]
	}
	if _, err := l.w.Write(oneLineAll(chunk[:len(chunk)-n])); err != nil {
		return 0, err
	}
	l.held = append(l.held, chunk[len(chunk)-n:]...)
	return len(chunk), nil
}

// oneLineAll turns every line break of b into a tab (b is inside a body).
func oneLineAll(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			b[i] = '\t'
		}
	}
	return b
}
