package proxy

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// A client's connect through the proxy waits for the server's own start-up
// (honest health, startup.go), the longest step on its path. So Serve
// starts a local server first, before it builds what it serves from the
// lock and the session (newProxy): that work then overlaps the server's
// start instead of delaying it (docs/proxy.md "Start-up and health"). The
// start runs in its own goroutine: it may take long (launch installs an
// npx package first), and meanwhile the proxy reads the client and answers
// it when the health window ends, as before.

// started is a local server started by startLocal, or why it could not be.
type started struct {
	proc    *process.Process
	cleanup func()
	err     error
	lines   *jsonline.EscapedLines // its stderr, escaped into opts.Stderr
}

// startFirst starts opts.Entry's locked command in the background; nil for
// a remote entry (its session starts in supervise, httpcore.go) or none
// (newProxy says what is wrong).
func startFirst(opts Options) <-chan *started {
	if opts.Entry == nil || opts.Entry.Remote() {
		return nil
	}
	ch := make(chan *started, 1)
	go func() {
		presize16K() // the process start is deep (stackpresize.go)
		ch <- startLocal(opts)
	}()
	// Let it run now, on this thread: the caller, queued behind it, goes
	// on as soon as another thread is free or the start waits (a fork, an
	// install). Without this the start waited for the caller's set-up or a
	// second thread's wake-up, about 1.5 ms on a loaded machine.
	runtime.Gosched()
	return ch
}

// startLocal starts opts.Entry's locked command (opts.Start in tests).
func startLocal(opts Options) *started {
	if opts.Start != nil {
		proc, cleanup, err := opts.Start()
		return &started{proc: proc, cleanup: cleanup, err: err}
	}
	w := opts.Stderr
	if w == nil {
		w = io.Discard
	}
	s := &started{lines: jsonline.NewEscapedLines(w, fmt.Sprintf("server %q stderr: ", opts.Name))}
	po := opts.Pin
	po.Stderr = s.lines
	s.proc, s.cleanup, s.err = launch.Start(opts.Name, opts.Entry, po)
	return s
}

// abandon stops the server startFirst started for a session that could
// not be set up, once its start is over (no orphan).
func abandon(first <-chan *started, grace time.Duration) {
	if first == nil {
		return
	}
	s := <-first
	if s.err != nil {
		return
	}
	if grace <= 0 {
		grace = 2 * time.Second // newProxy's default
	}
	s.proc.Stop(grace)
	s.cleanup()
}
