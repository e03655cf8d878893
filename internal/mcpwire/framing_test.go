package mcpwire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

func readAll(t testing.TB, r io.Reader, max int) ([]string, error) {
	t.Helper()
	lr := NewLineReader(r, max)
	var got []string
	for {
		line, err := lr.Next()
		if err != nil {
			if err == io.EOF {
				return got, nil
			}
			return got, err
		}
		got = append(got, string(line))
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // several times the bufio buffer
	tests := []struct {
		name string
		in   string
		max  int
		want []string
		err  error
	}{
		{"empty", "", 0, nil, nil},
		{"one", "{}\n", 0, []string{"{}"}, nil},
		{"crlf", "{\"a\":1}\r\n{}\r\n", 0, []string{`{"a":1}`, "{}"}, nil},
		{"blank lines skipped", "\n\r\n  \t\n{}\n\n", 0, []string{"{}"}, nil},
		{"unterminated last line", "{}\n{\"b\":2}", 0, []string{"{}", `{"b":2}`}, nil},
		{"inner CR kept", "a\rb\n", 0, []string{"a\rb"}, nil},
		{"long line", big + "\n" + "{}\n", 0, []string{big, "{}"}, nil},
		{"long line crlf", big + "\r\n", 0, []string{big}, nil},
		{"long unterminated", big, 0, []string{big}, nil},
		{"exactly max", "12345\n", 5, []string{"12345"}, nil},
		{"exactly max crlf", "12345\r\n", 5, []string{"12345"}, nil},
		{"over max", "123456\n", 5, nil, ErrLineTooLong},
		{"over max unterminated", "123456", 5, nil, ErrLineTooLong},
		{"over max after good", "1\n123456\n", 5, []string{"1"}, ErrLineTooLong},
		{"long over max", big + "\n", 100 << 10, nil, ErrLineTooLong},
		{"long exactly max", big + "\n", len(big), []string{big}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tc.in), tc.max)
			if !errors.Is(err, tc.err) && !(err == nil && tc.err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("line %d = %.40q…, want %.40q…", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestLineReaderSmallReads(t *testing.T) {
	// One byte per Read: the reader must assemble lines across reads.
	in := "{\"a\":1}\r\n\n" + strings.Repeat("y", 70000) + "\n{}"
	got, err := readAll(t, iotestOneByte{strings.NewReader(in)}, 0)
	if err != nil || len(got) != 3 || got[0] != `{"a":1}` || len(got[1]) != 70000 || got[2] != "{}" {
		t.Fatalf("got %d lines, err %v", len(got), err)
	}
}

type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func TestLineReaderLinesAreOwned(t *testing.T) {
	lr := NewLineReader(strings.NewReader("first\nsecond\n"+strings.Repeat("z", 100000)+"\nlast\n"), 0)
	a, _ := lr.Next()
	b, _ := lr.Next()
	c, _ := lr.Next()
	d, _ := lr.Next()
	if string(a) != "first" || string(b) != "second" || len(c) != 100000 || string(d) != "last" {
		t.Fatalf("earlier lines were overwritten: %q %q %d %q", a, b, len(c), d)
	}
	if cap(a) != len(a) {
		t.Errorf("line not sized exactly: len %d cap %d", len(a), cap(a))
	}
}

func TestLineReaderStickyError(t *testing.T) {
	lr := NewLineReader(strings.NewReader("123456\n{}\n"), 5)
	_, err1 := lr.Next()
	_, err2 := lr.Next()
	if !errors.Is(err1, ErrLineTooLong) || err2 != err1 {
		t.Fatalf("errors %v, %v", err1, err2)
	}
	var lt *LineTooLongError
	if !errors.As(err1, &lt) || lt.Max != 5 || !strings.Contains(err1.Error(), "5-byte") || !strings.Contains(err1.Error(), "no setting that raises it") {
		t.Errorf("error should name the limit and how to raise it: %v", err1)
	}
	if msg := (&LineTooLongError{Max: mcpspec.MaxMessage}).Error(); !strings.Contains(msg, "64 MiB") {
		t.Errorf("default limit not named: %s", msg)
	}
}

func TestLineWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewLineWriter(&buf)
	if err := w.Write([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("{\n}")); !errors.Is(err, ErrNewlineInMessage) {
		t.Fatalf("raw newline accepted: %v", err)
	}
	if buf.String() != "{\"a\":1}\n" {
		t.Fatalf("wrote %q", buf.String())
	}
}

// countingWriter records each Write call separately.
type countingWriter struct {
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func TestLineWriterOneWritePerMessage(t *testing.T) {
	cw := &countingWriter{}
	w := NewLineWriter(cw)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := bytes.Repeat([]byte{byte('a' + g)}, 100000+g)
			for i := 0; i < 20; i++ {
				w.Write(line)
			}
		}()
	}
	wg.Wait()
	if len(cw.writes) != 160 {
		t.Fatalf("%d writes for 160 messages", len(cw.writes))
	}
	for _, p := range cw.writes {
		if p[len(p)-1] != '\n' || bytes.Count(p, []byte{'\n'}) != 1 || len(bytes.Trim(p[:len(p)-1], string(p[:1]))) != 0 {
			t.Fatalf("a write is not exactly one whole line (%d bytes)", len(p))
		}
	}
}

func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "{}\n", "{}\r\n\r\n", "a\rb\n", "\r", "x", "{\"id\":1}\n{\"id\":\"1\"}",
		strings.Repeat("q", 70000) + "\n", "1234567\n12\n"} {
		f.Add([]byte(s), 6)
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 0 || max > 1<<20 {
			max = 0
		}
		lr := NewLineReader(bytes.NewReader(in), max)
		limit := lr.Max()
		var got [][]byte
		var err error
		for {
			var line []byte
			if line, err = lr.Next(); err != nil {
				break
			}
			got = append(got, line)
		}
		// Reference: split on \n, trim one \r, drop blank lines.
		var want [][]byte
		tooLong := false
		for _, l := range bytes.SplitAfter(in, []byte{'\n'}) {
			l = bytes.TrimSuffix(l, []byte{'\n'})
			l = bytes.TrimSuffix(l, []byte{'\r'})
			if len(l) > limit {
				tooLong = true
				break
			}
			if len(bytes.Trim(l, " \t\r")) == 0 {
				continue
			}
			want = append(want, l)
		}
		if tooLong != errors.Is(err, ErrLineTooLong) {
			t.Fatalf("too long: want %v, got err %v", tooLong, err)
		}
		if !tooLong && err != io.EOF {
			t.Fatalf("err %v, want EOF", err)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d: got %q want %q", i, got[i], want[i])
			}
		}
	})
}

func benchLines(b *testing.B, line []byte, n int) {
	stream := bytes.Repeat(append(line, '\n'), n)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lr := NewLineReader(bytes.NewReader(stream), 0)
		for {
			if _, err := lr.Next(); err != nil {
				break
			}
		}
	}
}

func BenchmarkLineReader(b *testing.B) {
	b.Run("small", func(b *testing.B) {
		benchLines(b, []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"ok"}]}}`), 1000)
	})
	b.Run("8MiB", func(b *testing.B) {
		benchLines(b, bytes.Repeat([]byte("a"), 8<<20), 4)
	})
}

func BenchmarkLineWriter(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	w := NewLineWriter(io.Discard)
	b.SetBytes(int64(len(line) + 1))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w.Write(line)
	}
}
