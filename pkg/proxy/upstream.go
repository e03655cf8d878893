package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/upstream"
)

// supervise starts the server, speaks its locked era, and runs the surface
// check now and after every list_changed, until ctx ends or the session
// fails or is quarantined.
func (p *Proxy) supervise(ctx context.Context) {
	up, cleanup, err := p.startUpstream()
	if err != nil {
		p.fail(fmt.Errorf("server %q could not be started: %w", p.opts.Name, err))
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
	readerDone := make(chan struct{})
	go func() {
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
func (p *Proxy) startUpstream() (upstream.Upstream, func(), error) {
	if p.opts.Entry.Remote() {
		up, err := p.remoteUpstream()
		return up, func() {}, err
	}
	proc, cleanup, err := p.start()
	if err != nil {
		return nil, nil, err
	}
	return upstream.NewStdio(proc), cleanup, nil
}

func (p *Proxy) start() (*process.Process, func(), error) {
	if p.opts.Start != nil {
		return p.opts.Start()
	}
	po := p.opts.Pin
	p.stderrLines = jsonline.NewEscapedLines(p.opts.Stderr, fmt.Sprintf("server %q stderr: ", p.opts.Name))
	po.Stderr = p.stderrLines
	return pin.Start(p.opts.Name, p.opts.Entry, po)
}

// serverEnded fails the session with why the server's messages ended.
func (p *Proxy) serverEnded(up upstream.Upstream, err error) {
	switch {
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

// Call sends one of the proxy's own requests to the server and waits for
// the answer, at most the configured timeout (it implements mcpwire.Caller).
func (p *Proxy) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	ch := make(chan idmap.Reply, 1)
	p.mu.Lock()
	if p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, mcpwire.ErrClosed)
	}
	u := p.ids.Own(&call{Call: idmap.Call{Own: ch}, method: method})
	up := p.up
	p.mu.Unlock()
	forget := func() {
		p.ids.DropOwn(u)
	}
	if err := up.WriteLine(jsonline.RequestLine(itoa(u), method, params)); err != nil {
		forget()
		return nil, fmt.Errorf("%s: write to server %q: %w", method, p.opts.Name, err)
	}
	timeout := p.opts.Pin.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if method == "initialize" || method == "server/discover" {
		// the handshake is the server's first answer: it gets the start-up allowance
		timeout = max(timeout, p.opts.Pin.StartTimeout)
	}
	if ctx.Value(noTimeout{}) != nil {
		timeout = 1<<63 - 1 // ends with the session (failWaiting) or ctx
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, fmt.Errorf("%s: %w", method, r.Err)
		}
		return r.Result, nil
	case <-t.C:
		forget()
		e := &mcpwire.TimeoutError{Method: method, After: timeout, StartTimeout: p.opts.Pin.StartTimeout}
		p.mu.Lock()
		if p.up != nil {
			e.Stderr = p.up.StderrTail()
		}
		p.mu.Unlock()
		return nil, e
	case <-ctx.Done():
		forget()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// notify sends one of the proxy's own notifications to the server.
func (p *Proxy) notify(method string, params json.RawMessage) error {
	return p.up.WriteLine(jsonline.RequestLine(nil, method, params))
}
