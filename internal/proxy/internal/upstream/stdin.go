package upstream

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// stdinQueue is the stdio server's input: WriteLine copies the message into
// a queue and returns at once, and one goroutine writes the queue to the
// server's stdin. A write to the server therefore never blocks the proxy's
// other work (answering the client, pings, cancellations, timeouts, reading
// the server): before, a server that sent requests and never read its
// stdin filled the pipe, the proxy's answer to it blocked its reader, and
// everything waiting on the server waited forever. What waits is bounded:
// a message that would take what queues behind the next one to be written
// over mcpspec.MaxWaitingForServer stops the server (overflow), and every
// later write fails.
type stdinQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	w       io.Writer
	lines   [][]byte
	waiting int   // bytes queued and not yet handed to a write (with per-message overhead)
	err     error // sticky: the pipe failed, the queue overflowed, or it was closed
	done    chan struct{}
	// overflow is called once, without the lock, when the bound is reached.
	overflow func(*OverflowError)
}

// messageOverhead is what each waiting message counts for beyond its
// bytes, so that many tiny messages are bounded too.
const messageOverhead = 64

// batchBytes is how much of the queue one write takes at most (small
// messages go out together).
const batchBytes = 64 << 10

// OverflowError is a server stopped because it did not read its input.
type OverflowError struct {
	Server string
	Exit   error // how it ended, once it did
}

func (e *OverflowError) Error() string {
	msg := fmt.Sprintf("server %q does not read its input: more than %d MiB of messages waited for it, the most mcpsum keeps for a server, so mcpsum stopped it (it floods the proxy with requests, or hangs)",
		e.Server, mcpspec.MaxWaitingForServer>>20)
	if e.Exit != nil {
		msg += "; " + e.Exit.Error()
	}
	return msg
}

func newStdinQueue(w io.Writer, overflow func(*OverflowError)) *stdinQueue {
	q := &stdinQueue{w: w, done: make(chan struct{}), overflow: overflow}
	q.cond = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// WriteLine queues the concatenation of parts and a newline (copied: the
// caller may reuse parts at once). It fails only once the queue is over:
// the pipe failed, the server was stopped for not reading, or Stop ran.
func (q *stdinQueue) WriteLine(parts ...[]byte) error {
	n := 1 + messageOverhead
	for _, p := range parts {
		n += len(p)
	}
	q.mu.Lock()
	if q.err != nil {
		defer q.mu.Unlock()
		return q.err
	}
	// The bound is on what queues behind the next message to be written:
	// one message of any size is always taken.
	if len(q.lines) > 0 && q.waiting-(len(q.lines[0])+messageOverhead)+n > mcpspec.MaxWaitingForServer {
		e := &OverflowError{}
		q.err, q.lines, q.waiting = e, nil, 0
		q.cond.Broadcast()
		q.mu.Unlock()
		q.overflow(e)
		return e
	}
	line := make([]byte, 0, n-messageOverhead)
	for _, p := range parts {
		line = append(line, p...)
	}
	q.lines = append(q.lines, append(line, '\n'))
	q.waiting += n
	q.cond.Signal()
	q.mu.Unlock()
	return nil
}

// run writes the queue until a write fails or the queue is closed and
// empty.
func (q *stdinQueue) run() {
	defer close(q.done)
	var buf []byte
	for {
		q.mu.Lock()
		for len(q.lines) == 0 && q.err == nil {
			q.cond.Wait()
		}
		if len(q.lines) == 0 { // closed (or failed) and nothing left
			q.mu.Unlock()
			return
		}
		// Take one message, or as many small ones as fit in a batch.
		k, size := 1, len(q.lines[0])
		for k < len(q.lines) && size+len(q.lines[k]) <= batchBytes {
			size += len(q.lines[k])
			k++
		}
		batch := q.lines[:k]
		q.lines = q.lines[k:]
		for _, l := range batch {
			q.waiting -= len(l) + messageOverhead // the line and its newline, as WriteLine counted it
		}
		q.mu.Unlock()
		out := batch[0]
		if k > 1 {
			buf = buf[:0]
			for _, l := range batch {
				buf = append(buf, l...)
			}
			out = buf
		}
		if _, err := q.w.Write(out); err != nil {
			q.mu.Lock()
			if q.err == nil {
				q.err = err
			}
			q.lines, q.waiting = nil, 0
			q.mu.Unlock()
			return
		}
		clear(batch)
	}
}

// drain ends the queue once what waits is written, waiting at most grace
// for that (the server may not read); later writes fail.
func (q *stdinQueue) drain(grace time.Duration) {
	q.mu.Lock()
	if q.err == nil {
		q.err = io.ErrClosedPipe
	}
	q.cond.Broadcast()
	q.mu.Unlock()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-q.done:
	case <-t.C:
	}
}
