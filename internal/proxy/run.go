package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/mrtrstate"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/rootshold"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/subs"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/tasktable"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/upstream"
)

// The session's life, top to bottom: Run and newProxy build the proxy and its
// goroutines, supervise starts the upstream and checks it, finish answers
// what the client asked before its input ended, shutdown ends it.

// Run serves one client on stdin/stdout until the client goes away, ctx is
// cancelled (a signal), or the server fails. It returns nil after a normal
// end, a *QuarantineError when the server was quarantined, and another error
// when the server could not be started, checked, or died (its stderr tail
// included).
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) error {
	return Serve(ctx, stdio{stdin, stdout}, opts)
}

// Serve is Run for any downstream: one client session (its messages,
// where the answers go) in front of the locked entry, until the client's
// messages end, ctx is cancelled, or the server fails. It returns as Run
// does.
func Serve(ctx context.Context, down Downstream, opts Options) error {
	first := startFirst(opts) // before the rest: early.go
	p, err := newProxy(down.Out(), opts)
	if err != nil {
		abandon(first, opts.Grace)
		return err
	}
	p.life.first = first
	defer p.endInput()
	if d, ok := down.(Direct); ok {
		d.Direct(p.take)
	}
	clientGone := make(chan struct{})
	go func() {
		presize8K()
		defer close(clientGone)
		defer p.endInput()
		p.readClient(mcpwire.NewLineReader(down.Messages(), opts.Pin.MaxLine))
	}()
	// The supervisor stops after shutdown (stopSup), not on the signal
	// itself: a signal first marks the session closing, so the server's exit
	// it causes is not reported as a failure.
	supCtx, stopSup := context.WithCancel(context.WithoutCancel(ctx))
	supDone := make(chan struct{})
	go func() {
		presize16K()
		defer close(supDone)
		p.supervise(supCtx)
	}()

	var why string
	select {
	case <-ctx.Done():
		why = "mcpsum proxy was interrupted"
	case <-clientGone:
		why = p.finish(ctx)
	case <-p.life.upFailed:
		why = "the server failed"
		p.awaitHealthAnswers()
		p.lingerAfterStartFailure(ctx, clientGone)
	}
	p.shutdown(why)
	stopSup()
	<-supDone

	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.gate.quarantine != nil:
		return p.gate.quarantine
	case p.gate.failure != nil:
		return p.gate.failure
	}
	return nil
}

func newProxy(stdout io.Writer, opts Options) (*Proxy, error) {
	if opts.Entry == nil {
		return nil, errors.New("proxy: no locked entry")
	}
	srv, err := newServed(opts.Entry, opts.PageSize)
	if err != nil {
		return nil, fmt.Errorf("server %q in %s: %w", opts.Name, opts.Lockfile, err)
	}
	p := &Proxy{
		opts: opts,
		srv:  srv,
		out:  jsonline.NewWriter(stdout),
		life: lifecycle{
			recheck:     make(chan struct{}, 1),
			started:     make(chan struct{}),
			upFailed:    make(chan struct{}),
			quarDone:    make(chan struct{}),
			handshook:   make(chan struct{}),
			clientKnown: make(chan struct{}),
			born:        time.Now(),
		},
		gate: gate{seenInfo: map[string]bool{}},
		ids:  newIDMap(),
		subs: subs.New(),
	}
	p.waits = newHookWaits(p.ids)
	p.mrtr = mrtrstate.New[*call, *downReq](p.ids)
	p.roots = &rootshold.Hold{}
	p.tasks = tasktable.New[CallInfo, *serverRequest, *jsonline.Error](maxTasks, maxQueuedInputs, p.refuseTaskRequests)
	if p.opts.Stderr == nil {
		p.opts.Stderr = io.Discard
	}
	p.voidID = jsonline.AppendJSON(nil, "mcpsum-void-"+newToken()[len("mcpsum-"):])
	if p.opts.Hooks == nil {
		p.opts.Hooks = noHooks{}
	}
	if p.opts.Grace <= 0 {
		p.opts.Grace = 2 * time.Second
	}
	p.cond = sync.NewCond(&p.mu)
	return p, nil
}

// shutdown stops the server's process group and answers every request still
// waiting with an error: the session's verdict when it has one (a
// quarantine or failure records its state before it answers the waiting
// requests, and the end of input may stop the session in between), else
// why the request was not answered.
func (p *Proxy) shutdown(why string) {
	p.mu.Lock()
	var verdict *jsonline.Error
	switch {
	case p.gate.quarantine != nil:
		verdict = p.gate.quarantine.rpc()
	case p.gate.state == gateFailed:
		verdict = p.failureRPC()
	default:
		p.gate.state = gateClosing
	}
	up := p.up
	p.cond.Broadcast()
	p.mu.Unlock()
	termGrace := p.opts.Grace
	select {
	case <-p.life.handshook:
	default:
		termGrace = max(termGrace, mcpwire.SilentStopGrace) // it may be installing (mcpwire.SilentStopGrace)
	}
	if up != nil {
		if err := up.Stop(p.opts.Grace, termGrace); err != nil {
			p.logf("%v", err)
		}
	}
	if verdict == nil {
		verdict = &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: the request was not answered: %s and the server %q was stopped", why, p.opts.Name)}
	}
	p.failWaiting(verdict)
}

// supervise starts the server, speaks its locked era, and runs the surface
// check now and after every list_changed, until ctx ends or the session
// fails or is quarantined.
func (p *Proxy) supervise(ctx context.Context) {
	up, cleanup, err := p.startUpstream(ctx)
	if err != nil {
		how := "could not be started"
		if p.opts.Entry.Remote() {
			how = "cannot be reached"
		}
		p.fail(fmt.Errorf("server %q %s: %w", p.opts.Name, how, err))
		close(p.life.started)
		return
	}
	close(p.life.started)
	defer cleanup()
	defer func() {
		if p.stderrLines != nil {
			p.stderrLines.Flush() // a last line without a newline
		}
	}()
	p.mu.Lock()
	if p.gate.state == gateClosing || p.gate.state == gateFailed {
		p.mu.Unlock()
		up.Stop(p.opts.Grace, p.opts.Grace)
		return
	}
	p.up = up
	p.mu.Unlock()
	if d, ok := up.(upstream.Direct); ok {
		d.Direct(p.takeServer)
	}
	readerDone := make(chan struct{})
	go func() {
		presize16K()
		defer close(readerDone)
		p.serverEnded(up, p.readServerStream(up.Messages(), p.opts.Pin.MaxLine))
	}()
	go p.watchExit(up, readerDone)
	defer up.Stop(p.opts.Grace, p.opts.Grace) // quarantine or shutdown already stopped it; this only waits

	h, err := p.handshake(ctx)
	if err != nil {
		p.handshakeFailed(err)
		return
	}
	p.mu.Lock()
	p.hello = h
	p.mu.Unlock()
	close(p.life.handshook)
	if h.Era == mcpspec.EraModern {
		p.listenUpstream(h)
	}
	p.syncSubscriptions()
	for {
		p.mu.Lock()
		p.life.checksStarted++ // a renewed remote session waits for its check (httpcore.go)
		p.mu.Unlock()
		p.check(ctx)
		p.mu.Lock()
		p.life.checksDone = p.life.checksStarted
		p.cond.Broadcast()
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-p.life.upFailed:
			return
		case <-p.life.quarDone:
			return
		case <-p.life.recheck:
		}
	}
}

// startUpstream starts the locked command, or prepares the session with a
// remote server (httpcore.go).
func (p *Proxy) startUpstream(ctx context.Context) (upstream.Upstream, func(), error) {
	if p.opts.Entry.Remote() {
		up, err := p.remoteUpstream(ctx)
		return up, func() {}, err
	}
	proc, cleanup, err := p.start()
	if err != nil {
		return nil, nil, err
	}
	return upstream.NewStdio(proc), cleanup, nil
}

// start takes the local server Serve started first (early.go).
func (p *Proxy) start() (*process.Process, func(), error) {
	var s *started
	if p.life.first != nil {
		s = <-p.life.first
	} else { // not through Serve
		s = startLocal(p.opts)
	}
	p.stderrLines = s.lines
	return s.proc, s.cleanup, s.err
}

// serverEnded fails the session with why the server's messages ended.
func (p *Proxy) serverEnded(up upstream.Upstream, err error) {
	switch {
	case errors.As(err, new(*upstream.OverflowError)):
		process.WaitChan(up.Exited(), 2*time.Second) // stopped at once: say how it ended too
		p.fail(up.ExitError())
	case errors.Is(err, mcpwire.ErrLineTooLong):
		p.fail(fmt.Errorf("server %q: %w", p.opts.Name, err))
	case errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed):
		select {
		case <-up.Exited():
			p.fail(up.ExitError())
		case <-time.After(2 * time.Second):
			p.fail(fmt.Errorf("server %q closed its stdout but is still running", p.opts.Name))
		}
	default:
		p.fail(fmt.Errorf("read from server %q: %w", p.opts.Name, err))
	}
}

// watchExit fails the session when the server exited but something else (a
// grandchild) keeps its stdout open.
func (p *Proxy) watchExit(up upstream.Upstream, readerDone <-chan struct{}) {
	select {
	case <-readerDone:
		return
	case <-up.Exited():
	}
	select {
	case <-readerDone:
	case <-time.After(time.Second):
		p.fail(up.ExitError())
	}
}

// finish is the proxy's end of input: a client that wrote its requests and
// closed its input (`printf ... | mcpsum proxy`) still gets an answer to
// every request the proxy accepted. The proxy waits for the server's start
// and surface check (a drift is then a quarantine: reported on stderr, exit
// 1, whether or not the client still reads; the check's own timeouts bound
// it), then for every accepted request: forwarded, held, or waiting for a
// hook's verdict, for at most --timeout-secs once the gate is open. A
// signal, a failure of the server or a client that closed its end of
// stdout too (jsonline.Writer.ReaderGone) ends the wait. It returns why
// the session ends, for the requests still waiting; the caller then stops
// the server.
func (p *Proxy) finish(ctx context.Context) string {
	const tick = 10 * time.Millisecond
	limit := p.answerTimeout()
	var deadline time.Time
	for {
		p.mu.Lock()
		st := p.gate.state
		busy := p.ids.Busy() + len(p.gate.held) + p.waits.Count()
		p.mu.Unlock()
		switch {
		case st >= gateQuarantined, p.out.Failed() != nil, p.out.ReaderGone():
			return "the client closed its input"
		case st == gateOpen && busy == 0:
			return "the client closed its input"
		case st == gateOpen && deadline.IsZero():
			deadline = time.Now().Add(limit)
		case st == gateOpen && time.Now().After(deadline):
			why := fmt.Sprintf("the client closed its input, the server did not answer within --timeout-secs (%s)", limit)
			p.logf("%s: %d request(s) get an error", why, busy)
			return why
		}
		select {
		case <-ctx.Done():
			return "mcpsum proxy was interrupted"
		case <-p.life.upFailed:
			return "the server failed"
		case <-time.After(tick):
		}
	}
}

// readClient reads the client until EOF or an error.
func (p *Proxy) readClient(r *mcpwire.LineReader) {
	for {
		line, err := r.Next()
		if err != nil {
			if errors.Is(err, mcpwire.ErrLineTooLong) {
				p.logf("the client sent %v; closing the session", err)
				p.out.WriteLine(jsonline.ErrorLine(nil, &jsonline.Error{Code: mcpspec.CodeInvalidRequest, Message: "mcpsum: " + err.Error()}))
			}
			return
		}
		p.in.mu.Lock()
		p.fromClient(line)
		p.in.mu.Unlock()
	}
}
