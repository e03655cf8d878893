package jsonline

import (
	"bytes"
	"testing"
)

// A server's stderr reaches the log line by line, escaped; Lines counts the
// lines written and its channel closes when the next one is (the proxy's
// start-up settle waits on it), not for a partial line or a blank one.
func TestEscapedLinesCountsLines(t *testing.T) {
	var out bytes.Buffer
	e := NewEscapedLines(&out, "s: ")
	n, changed := e.Lines()
	if n != 0 {
		t.Fatalf("lines before any: %d", n)
	}
	e.Write([]byte("partial \x1b[31m"))
	e.Write([]byte("\n\n   \n"))
	select {
	case <-changed:
	default:
		t.Fatal("the channel did not close when a line was written")
	}
	n, changed = e.Lines()
	if n != 1 {
		t.Errorf("lines after one line and two blank ones: %d", n)
	}
	e.Write([]byte("no newline yet"))
	select {
	case <-changed:
		t.Fatal("a partial line counted")
	default:
	}
	e.Flush()
	if n, _ = e.Lines(); n != 2 {
		t.Errorf("lines after Flush: %d", n)
	}
	if got := out.String(); bytes.Contains([]byte(got), []byte("\x1b")) || !bytes.Contains([]byte(got), []byte(`s: partial \u001b[31m`)) {
		t.Errorf("escaped output: %q", got)
	}
}
