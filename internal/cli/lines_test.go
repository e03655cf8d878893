package cli

import (
	"bytes"
	"strings"
	"testing"
)

// writes records each write it gets.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) {
	w.got = append(w.got, string(p))
	return len(p), nil
}

func TestLinesPassesWholeLinesInChunks(t *testing.T) {
	var w writes
	l := &Lines{W: &w}
	var want strings.Builder
	for i := 0; i < 20000; i++ {
		line := strings.Repeat("x", i%40) + "\n"
		want.WriteString(line)
		l.Write([]byte(line[:len(line)/2]))
		l.Write([]byte(line[len(line)/2:]))
	}
	l.Write([]byte("no line end"))
	want.WriteString("no line end")
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.got, ""); got != want.String() {
		t.Fatalf("output differs: %d bytes, want %d", len(got), want.Len())
	}
	if len(w.got) > 1+want.Len()/linesChunk+1 {
		t.Errorf("%d writes for %d bytes: not passed on in chunks", len(w.got), want.Len())
	}
	for i, g := range w.got[:len(w.got)-1] {
		if !strings.HasSuffix(g, "\n") {
			t.Fatalf("write %d cuts a line: ends %q", i, g[max(0, len(g)-10):])
		}
	}
	if !bytes.Equal([]byte(w.got[len(w.got)-1][len(w.got[len(w.got)-1])-11:]), []byte("no line end")) {
		t.Errorf("last write %q", w.got[len(w.got)-1])
	}
}
