package process

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"sync"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The child's stderr: a raw copy to Spec.Stderr and an escaped tail for
// error messages (ExitError).

const (
	tailLines   = 20
	tailLineMax = 300 // bytes of escaped rendering kept per line
	rawLineMax  = 4096
)

type stderrTail struct {
	mu sync.Mutex
	l  []string
}

func (t *stderrTail) add(raw []byte) {
	raw = bytes.TrimSuffix(raw, []byte("\r"))
	if len(bytes.Trim(raw, " \t\r")) == 0 {
		return
	}
	s := termtext.TruncateQuote(string(raw), tailLineMax)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.l) == tailLines {
		t.l = append(t.l[:0], t.l[1:]...)
	}
	t.l = append(t.l, s)
}

func (t *stderrTail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.l)
}

// readStderr keeps the tail (lines cut to rawLineMax bytes) and copies raw
// bytes to copyTo until EOF.
func (p *Process) readStderr(copyTo io.Writer) {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(p.stderrR, rawLineMax)
	var cur []byte
	for {
		frag, err := br.ReadSlice('\n')
		if copyTo != nil && len(frag) > 0 {
			copyTo.Write(frag)
		}
		if room := rawLineMax - len(cur); room > 0 {
			cur = append(cur, frag[:min(room, len(frag))]...)
		}
		switch {
		case err == nil:
			p.tail.add(bytes.TrimSuffix(cur, []byte("\n")))
			cur = cur[:0]
		case err == bufio.ErrBufferFull:
		default:
			p.tail.add(cur)
			return
		}
	}
}
