package mcphttp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// readBufSize is the size of an SSE stream's read buffer: a line that fits
// is looked at in place.
const readBufSize = 64 << 10

// SSEStream reads a text/event-stream (the Streamable HTTP response body and
// GET stream) one event at a time, with a cap on each event's data, so a
// server cannot make mcpsum hold more than one event per stream; and an
// event longer than a small threshold is not held at all: its data goes to
// a writer the caller gives as it arrives (the proxy streams an 8 MiB result
// this way). Lines end in "\n" or "\r\n"; a lone "\r" is not a line end here
// (no MCP server sends it, and accepting it would let one byte split an
// event two ways).
type SSEStream struct {
	br    *bufio.Reader
	max   int  // cap on one event's data
	small int  // data up to this size is returned whole
	sep   byte // what joins two data lines of one event
	data  []byte
	// LastID is the id of the last event dispatched (for Last-Event-ID).
	LastID string
	// Retry is the reconnection time the server last set with a retry
	// field (SEP-1699: how long to wait before resuming a stream it
	// closed); HasRetry says whether it set one.
	Retry    time.Duration
	HasRetry bool
}

// SSEEvent is one dispatched event: its type ("" is "message") and its data
// (the data lines joined), or Spilled when the data went to the spill
// writer instead.
type SSEEvent struct {
	Type    string
	Data    []byte
	Spilled bool
}

// NewSSEStream reads r. Events are capped at max bytes of data (0:
// mcpspec.MaxMessage); events up to small bytes are returned whole (small <= 0:
// every event is). Two data lines of one event are joined with sep: the
// SSE specification's "\n", or a "\t" for a reader that frames messages by
// lines (both are JSON whitespace between tokens and invalid raw inside a
// string, so the message's meaning and validity are unchanged).
func NewSSEStream(r io.Reader, max, small int, sep byte) *SSEStream {
	if max <= 0 {
		max = mcpspec.MaxMessage
	}
	if small <= 0 || small > max {
		small = max
	}
	br := sseBufs.Get().(*bufio.Reader)
	br.Reset(r)
	return &SSEStream{br: br, max: max, small: small, sep: sep}
}

// sseBufs keeps the read buffers of ended streams: a proxy reads one
// stream per call, and a fresh 64 KiB buffer each time is garbage.
var sseBufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufSize) }}

// Release gives the stream's buffer back for another stream; the stream
// must not be used after.
func (s *SSEStream) Release() {
	if s.br != nil {
		s.br.Reset(nil)
		sseBufs.Put(s.br)
		s.br = nil
	}
}

// ErrTooLarge is matched (errors.Is) by the error of a message (an SSE
// event's data, a JSON body) longer than the session's limit.
var ErrTooLarge = errors.New("message too large")

// ErrSSECut is an event whose data had begun to spill when the stream
// ended or failed; what was written of it is half a message.
var ErrSSECut = errors.New("the stream ended in the middle of an event")

// event is the state of the event being read.
type event struct {
	typ, id  []byte
	retry    []byte // the retry field's value (digits only, or it is ignored)
	hasData  bool
	hasID    bool
	n        int       // bytes of data so far
	spilled  bool      // data goes to w
	w        io.Writer // nil while spilled: discarded
	pendCR   bool      // a "\r" ended the last fragment: held until the next one shows whether "\n" follows
	field    int       // the field of the current line
	lineFrag bool      // inside a line (after its first fragment)
}

const (
	fieldSkip = iota
	fieldData
	fieldEvent
	fieldID
	fieldRetry
)

// Next returns the next event that has data. Comments, retry fields and
// events without data are skipped. When an event's data outgrows small,
// spill is called once with the event's type so far and returns where the
// data goes (what was read of it first, then the rest as it arrives; a nil
// writer discards the event); the caller ends the message itself. io.EOF
// at the end of the stream (a half-received event at EOF is dropped, as the
// SSE specification says; one that spilled already is ErrSSECut). The Data
// of a returned event is the caller's.
func (s *SSEStream) Next(spill func(typ string) io.Writer) (SSEEvent, error) {
	ev := event{}
	s.data = s.data[:0:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		complete := err == nil
		if err != nil && err != bufio.ErrBufferFull {
			if len(frag) == 0 || err != io.EOF {
				if ev.spilled {
					return SSEEvent{}, fmt.Errorf("%w: %v", ErrSSECut, err)
				}
				return SSEEvent{}, err
			}
			complete = false // an unterminated last line is not dispatched
		}
		blank := !ev.lineFrag && (len(frag) == 0 || frag[0] == '\n' || (frag[0] == '\r' && len(frag) > 1 && frag[1] == '\n'))
		if blank {
			if out, ok := s.dispatch(&ev); ok {
				return out, nil
			}
			ev = event{}
			s.data = s.data[:0]
			if err == io.EOF {
				return SSEEvent{}, io.EOF
			}
			continue
		}
		if complete {
			frag = frag[:len(frag)-1]
			if n := len(frag); n > 0 && frag[n-1] == '\r' {
				frag = frag[:n-1]
			} else if n == 0 && ev.pendCR {
				ev.pendCR = false // the held "\r" was the line's end
			}
		}
		if !ev.lineFrag {
			var sep bool
			frag, sep = s.startLine(&ev, frag)
			if sep {
				if err := s.emit(&ev, []byte{s.sep}, spill); err != nil {
					return SSEEvent{}, err
				}
			}
		}
		if err := s.value(&ev, frag, complete, spill); err != nil {
			return SSEEvent{}, err
		}
		ev.lineFrag = !complete
		if err == io.EOF {
			if ev.spilled {
				return SSEEvent{}, ErrSSECut
			}
			return SSEEvent{}, io.EOF
		}
	}
}

// startLine reads a line's field name and returns the rest of the fragment
// (the value) and whether a data separator goes before it.
func (s *SSEStream) startLine(ev *event, frag []byte) (value []byte, sep bool) {
	ev.field = fieldSkip
	if len(frag) == 0 || frag[0] == ':' {
		return nil, false
	}
	name := frag
	if i := bytes.IndexByte(frag, ':'); i >= 0 {
		name, value = frag[:i], frag[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		ev.field, sep = fieldData, ev.hasData
		ev.hasData = true
	case "event":
		ev.field, ev.typ = fieldEvent, ev.typ[:0]
	case "id":
		ev.field, ev.id, ev.hasID = fieldID, ev.id[:0], true
	case "retry":
		ev.field, ev.retry = fieldRetry, ev.retry[:0]
	}
	return value, sep
}

// value takes a fragment of the current line's value (its line end already
// cut when complete).
func (s *SSEStream) value(ev *event, b []byte, complete bool, spill func(string) io.Writer) error {
	switch ev.field {
	case fieldEvent:
		if len(ev.typ)+len(b) <= 256 {
			ev.typ = append(ev.typ, b...)
		}
		return nil
	case fieldID:
		if len(ev.id)+len(b) <= 1024 {
			ev.id = append(ev.id, b...)
		}
		return nil
	case fieldRetry:
		if len(ev.retry)+len(b) <= 9 {
			ev.retry = append(ev.retry, b...)
		} else {
			ev.retry = append(ev.retry[:0], 'x') // too long: ignored
		}
		if complete {
			s.setRetry(ev.retry)
		}
		return nil
	case fieldSkip:
		return nil
	}
	if ev.pendCR {
		ev.pendCR = false
		if err := s.emit(ev, []byte{'\r'}, spill); err != nil {
			return err
		}
	}
	if !complete && len(b) > 0 && b[len(b)-1] == '\r' {
		b, ev.pendCR = b[:len(b)-1], true
	}
	return s.emit(ev, b, spill)
}

// setRetry takes a complete retry field: as the SSE specification says, a
// value of ASCII digits only sets the reconnection time (in
// milliseconds); any other is ignored.
func (s *SSEStream) setRetry(v []byte) {
	if len(v) == 0 {
		return
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return
		}
		n = n*10 + int(c-'0')
	}
	s.Retry, s.HasRetry = time.Duration(n)*time.Millisecond, true
}

// emit adds b to the event's data: kept while the data is small, else
// written to the spill writer.
func (s *SSEStream) emit(ev *event, b []byte, spill func(string) io.Writer) error {
	if len(b) == 0 {
		return nil
	}
	if ev.n+len(b) > s.max {
		err := fmt.Errorf("%w: more than the %s limit in one event", ErrTooLarge, termtext.Size(s.max))
		if ev.spilled {
			err = fmt.Errorf("%w: %w", ErrSSECut, err)
		}
		return err
	}
	ev.n += len(b)
	if !ev.spilled && len(s.data)+len(b) <= s.small {
		s.data = append(s.data, b...)
		return nil
	}
	if !ev.spilled {
		ev.spilled = true
		if spill != nil {
			ev.w = spill(string(ev.typ))
		}
		if ev.w != nil {
			if _, err := ev.w.Write(s.data); err != nil {
				return fmt.Errorf("%w: %w", ErrSSECut, err)
			}
		}
		s.data = s.data[:0]
	}
	if ev.w != nil {
		if _, err := ev.w.Write(b); err != nil {
			return fmt.Errorf("%w: %w", ErrSSECut, err)
		}
	}
	return nil
}

// dispatch ends an event at a blank line: ok when it had data (an event
// whose data is empty, a priming event, is not dispatched).
func (s *SSEStream) dispatch(ev *event) (SSEEvent, bool) {
	if ev.hasID && bytes.IndexByte(ev.id, 0) < 0 {
		s.LastID = string(ev.id)
	}
	switch {
	case ev.spilled:
		return SSEEvent{Type: string(ev.typ), Spilled: true}, true
	case !ev.hasData || len(s.data) == 0:
		return SSEEvent{}, false
	}
	out := SSEEvent{Type: string(ev.typ), Data: s.data}
	s.data = nil // handed over, not copied
	return out, true
}
