package upstream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// A server that never reads its stdin: WriteLine never blocks, the bytes
// waiting stay bounded, and at the bound the queue calls overflow once
// (the Stdio then stops the server) and every later write fails.
func TestStdinQueueBoundsWhatWaits(t *testing.T) {
	r, w := io.Pipe() // nobody reads r
	defer r.Close()
	var overflows atomic.Int32
	q := newStdinQueue(w, func(*OverflowError) { overflows.Add(1) })
	msg := []byte(strings.Repeat("x", 4<<10))
	accepted, err := 0, error(nil) // as the queue counts them
	for err == nil {
		if err = q.WriteLine([]byte(`{"id":`), msg, []byte(`}`)); err == nil {
			accepted += len(msg) + 8 + messageOverhead
		}
	}
	var oe *OverflowError
	if !errors.As(err, &oe) {
		t.Fatalf("the write over the bound: %v", err)
	}
	// What queues behind the message written next, plus the batch the
	// writer holds (blocked on the pipe) and that message.
	if accepted < mcpspec.MaxWaitingForServer || accepted > mcpspec.MaxWaitingForServer+batchBytes+2*len(msg) {
		t.Errorf("%d bytes were accepted, want about %d", accepted, mcpspec.MaxWaitingForServer)
	}
	if err := q.WriteLine([]byte("{}")); !errors.As(err, &oe) {
		t.Errorf("a write after the overflow: %v", err)
	}
	if n := overflows.Load(); n != 1 {
		t.Errorf("overflow called %d times, want once", n)
	}
}

// One message larger than the bound is accepted when nothing waits (the
// proxy's line limit is the same 64 MiB), and messages reach a server that
// reads in the order they were written, all of them once drained.
func TestStdinQueueOrderAndDrain(t *testing.T) {
	r, w := io.Pipe()
	got := make(chan []string, 1)
	go func() { // each line, the big one as its length
		var lines []string
		br := bufio.NewReaderSize(r, 64<<10)
		for n := 0; ; {
			chunk, err := br.ReadSlice('\n')
			n += len(chunk)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				break
			}
			if n > 1<<20 {
				lines = append(lines, fmt.Sprint(n))
			} else {
				lines = append(lines, strings.TrimSuffix(string(chunk), "\n"))
			}
			n = 0
		}
		got <- lines
	}()
	q := newStdinQueue(w, func(*OverflowError) { t.Error("overflow of a queue that is read") })
	big := []byte(strings.Repeat("b", mcpspec.MaxWaitingForServer+1))
	if err := q.WriteLine(big); err != nil {
		t.Fatalf("one big message: %v", err)
	}
	const n = 5000
	for i := range n {
		if err := q.WriteLine([]byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	q.drain(time.Minute) // bounded by the reader, which reads everything
	w.Close()
	lines := <-got
	if len(lines) != n+1 || lines[0] != fmt.Sprint(len(big)+1) {
		t.Fatalf("%d lines arrived, want %d; the first one %s bytes, want %d", len(lines), n+1, lines[0], len(big)+1)
	}
	for i, l := range lines[1:] {
		if l != fmt.Sprint(i) {
			t.Fatalf("line %d is %q", i+1, l)
		}
	}
	if err := q.WriteLine([]byte("late")); err == nil {
		t.Error("a write after drain was accepted")
	}
}
