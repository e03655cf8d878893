package mcpwire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseReader reads a text/event-stream (the Streamable HTTP response body and
// GET stream) one event at a time, with a cap on each event's size, so a
// server cannot make mcpsum hold more than one event (at most max bytes) per
// stream. Lines end in "\n" or "\r\n"; a lone "\r" is not a line end here
// (no MCP server sends it, and accepting it would let one byte split an
// event two ways).
type sseReader struct {
	br   *bufio.Reader
	max  int
	data []byte
	line []byte
}

func newSSEReader(r io.Reader, max int) *sseReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &sseReader{br: bufio.NewReaderSize(r, readBufSize), max: max}
}

// sseEvent is one dispatched event: its type ("" is "message"), its id and
// its data (the data lines joined with "\n").
type sseEvent struct {
	Type, ID string
	Data     []byte
}

// errEventTooLarge is matched by the error of an event over the cap.
var errEventTooLarge = errors.New("SSE event too large")

// next returns the next event that has data. Comments, retry fields and
// events without data are skipped. io.EOF at the end of the stream (a
// half-received event at EOF is dropped, as the SSE specification says).
func (s *sseReader) next() (*sseEvent, error) {
	ev := &sseEvent{}
	s.data = s.data[:0:0]
	hasData := false
	for {
		line, owned, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 { // dispatch; an event whose data is empty is not (a priming event)
			if hasData && len(s.data) > 0 {
				ev.Data, s.data = s.data, nil // handed over, not copied
				return ev, nil
			}
			ev, hasData = &sseEvent{}, false
			s.data = s.data[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if len(s.data)+len(value)+1 > s.max {
				return nil, fmt.Errorf("%w: more than the %s limit in one event", errEventTooLarge, sizeString(s.max))
			}
			switch {
			case !hasData && owned: // a long first line: keep its buffer, do not copy it
				s.data, s.line = value, nil
			case hasData:
				s.data = append(append(s.data, '\n'), value...)
			default:
				s.data = append(s.data, value...)
			}
			hasData = true
		case "event":
			ev.Type = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		}
	}
}

// readLine returns one line without its ending; it is valid until the next
// call. owned reports a line assembled in s.line (longer than the bufio
// buffer), which the caller may take over (then it sets s.line to nil). A
// line longer than the cap is an error.
func (s *sseReader) readLine() (line []byte, owned bool, err error) {
	s.line = s.line[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		if len(s.line)+len(frag) > s.max+16 { // room for "data: " and "\r\n"
			return nil, false, fmt.Errorf("%w: a line longer than the %s limit", errEventTooLarge, sizeString(s.max))
		}
		if len(frag) > cap(s.line)-len(s.line) && err != nil { // grow by doubling: fewer copies than append's 1.25x
			grown := make([]byte, len(s.line), 2*cap(s.line)+len(frag))
			copy(grown, s.line)
			s.line = grown
		}
		switch err {
		case nil:
			if len(s.line) == 0 {
				return trimCR(frag[:len(frag)-1]), false, nil
			}
			s.line = append(s.line, frag[:len(frag)-1]...)
			return trimCR(s.line), true, nil
		case bufio.ErrBufferFull:
			s.line = append(s.line, frag...)
		default:
			return nil, false, err
		}
	}
}
