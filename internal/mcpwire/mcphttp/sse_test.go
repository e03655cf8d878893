package mcphttp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// oneByteReader hands out one byte per Read, so every line crosses reads.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

// The streaming reader: small events come whole; a long one goes to the
// spill writer as it arrives, its data lines joined by the separator, CRLF
// line ends and a "\r" at a buffer boundary handled; an event cut in the
// middle of its data is an error, never a short message.
func TestSSEStreamSpill(t *testing.T) {
	long := strings.Repeat("x", 3*readBufSize+7) // lines longer than the bufio buffer
	body := ": comment\r\nid: 1\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\n" +
		"id: 2\ndata:\n\n" + // a priming event: empty data, not dispatched
		"data: " + long + "\r\ndata: " + long + "\r\n\r\n" +
		"data: tail\n\n"
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(body), "bytewise": oneByteReader{strings.NewReader(body)}} {
		t.Run(name, func(t *testing.T) {
			s := NewSSEStream(r, 1<<20, 1024, '\t')
			var spilled bytes.Buffer
			spill := func(typ string) io.Writer { return &spilled }
			ev, err := s.Next(spill)
			if err != nil || ev.Spilled || string(ev.Data) != `{"a":1}` || ev.Type != "message" {
				t.Fatalf("first event %+v %q, %v", ev, ev.Data, err)
			}
			ev, err = s.Next(spill)
			if err != nil || !ev.Spilled || spilled.String() != long+"\t"+long || s.LastID != "2" {
				t.Fatalf("long event: %+v %v, spilled %d bytes (want %d), last id %q", ev, err, spilled.Len(), 2*len(long)+1, s.LastID)
			}
			if ev, err = s.Next(spill); err != nil || string(ev.Data) != "tail" {
				t.Fatalf("last event %+v %v", ev, err)
			}
			if _, err = s.Next(spill); err != io.EOF {
				t.Fatalf("end: %v, want io.EOF", err)
			}
		})
	}
	s := NewSSEStream(strings.NewReader("data: "+long), 1<<20, 1024, '\t')
	if _, err := s.Next(func(string) io.Writer { return io.Discard }); !errors.Is(err, ErrSSECut) {
		t.Fatalf("an event cut while spilling: %v, want ErrSSECut", err)
	}
	s = NewSSEStream(strings.NewReader("data: "+long+"\n\n"), 1024, 100, '\t')
	if _, err := s.Next(func(string) io.Writer { return io.Discard }); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an event over the cap: %v", err)
	}
	s = NewSSEStream(strings.NewReader("data: "+strings.Repeat("data:\n", 5000)+"\n"), 1024, 100, '\t')
	if _, err := s.Next(nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("empty data lines past the cap: %v", err)
	}
}

// A retry field of ASCII digits sets the reconnection time (SEP-1699); any
// other value is ignored, as the SSE specification says; an event with an
// id and empty data (a priming event) is not dispatched but sets LastID.
func TestSSERetryField(t *testing.T) {
	for _, tc := range []struct {
		in    string
		retry time.Duration
		has   bool
	}{
		{"id: e1\nretry: 500\ndata: \n\n", 500 * time.Millisecond, true},
		{"retry: 5x\n\n", 0, false},
		{"retry:\n\n", 0, false},
		{"retry: 1234567890123\n\n", 0, false},
		{"retry: 10\r\nretry: 20\n\n", 20 * time.Millisecond, true},
	} {
		st := NewSSEStream(oneByteReader{strings.NewReader(tc.in)}, 0, 0, '\n')
		if _, err := st.Next(nil); err != io.EOF {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if st.Retry != tc.retry || st.HasRetry != tc.has {
			t.Errorf("%q: retry %v %v, want %v %v", tc.in, st.Retry, st.HasRetry, tc.retry, tc.has)
		}
		if strings.HasPrefix(tc.in, "id: e1") && st.LastID != "e1" {
			t.Errorf("%q: LastID %q", tc.in, st.LastID)
		}
	}
}
