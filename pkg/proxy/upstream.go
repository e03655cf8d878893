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
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

// supervise starts the server, speaks its locked era, and runs the surface
// check now and after every list_changed, until ctx ends or the session
// fails or is quarantined.
func (p *Proxy) supervise(ctx context.Context) {
	proc, cleanup, err := p.start()
	if err != nil {
		p.fail(fmt.Errorf("server %q could not be started: %w", p.opts.Name, err))
		close(p.started)
		return
	}
	close(p.started)
	defer cleanup()
	defer func() {
		if p.stderrLines != nil {
			p.stderrLines.Flush() // a last line without a newline
		}
	}()
	p.mu.Lock()
	if p.state == gateClosing || p.state == gateFailed {
		p.mu.Unlock()
		proc.Stop(p.grace)
		return
	}
	p.proc = proc
	p.up = newLineWriter(proc.Stdin)
	p.mu.Unlock()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		if rs, ok := any(proc).(rawStdout); ok {
			p.serverEnded(proc, p.readServerStream(rs.RawStdout(), p.opts.Pin.MaxLine))
			return
		}
		p.readServer(proc)
	}()
	go p.watchExit(proc, readerDone)
	defer proc.Stop(p.grace) // quarantine or shutdown already stopped it; this only waits

	h, err := p.handshake(ctx)
	if err != nil {
		p.handshakeFailed(err)
		return
	}
	p.mu.Lock()
	p.hello = h
	p.mu.Unlock()
	close(p.handshook)
	if h.Era == mcpspec.EraModern {
		p.listenUpstream(h)
	}
	p.syncSubscriptions()
	for {
		p.check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-p.upFailed:
			return
		case <-p.quarDone:
			return
		case <-p.recheck:
		}
	}
}

func (p *Proxy) start() (*mcpwire.Process, func(), error) {
	if p.opts.Start != nil {
		return p.opts.Start()
	}
	po := p.opts.Pin
	p.stderrLines = newEscapedLines(p.log, fmt.Sprintf("server %q stderr: ", p.opts.Name))
	po.Stderr = p.stderrLines
	return pin.Start(p.opts.Name, p.opts.Entry, po)
}

// readServer reads the server's stdout line by line until it ends (when
// the process does not expose its raw stdout for streaming).
func (p *Proxy) readServer(proc *mcpwire.Process) {
	for {
		line, err := proc.Stdout.Next()
		if err != nil {
			p.serverEnded(proc, err)
			return
		}
		p.fromServer(line)
	}
}

func (p *Proxy) serverEnded(proc *mcpwire.Process, err error) {
	switch {
	case errors.Is(err, mcpwire.ErrLineTooLong):
		p.fail(fmt.Errorf("server %q: %w", p.opts.Name, err))
	case errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed):
		select {
		case <-proc.Done():
			p.fail(proc.ExitError())
		case <-time.After(2 * time.Second):
			p.fail(fmt.Errorf("server %q closed its stdout but is still running", p.opts.Name))
		}
	default:
		p.fail(fmt.Errorf("read from server %q: %w", p.opts.Name, err))
	}
}

// watchExit fails the session when the server exited but something else (a
// grandchild) keeps its stdout open.
func (p *Proxy) watchExit(proc *mcpwire.Process, readerDone <-chan struct{}) {
	select {
	case <-readerDone:
		return
	case <-proc.Done():
	}
	select {
	case <-readerDone:
	case <-time.After(time.Second):
		p.fail(proc.ExitError())
	}
}

func (p *Proxy) fromServer(line []byte) {
	env, id, err := checkServerLine(line)
	switch {
	case err != nil:
		// Not exactly one JSON-RPC message (two on one line, broken JSON, a
		// repeated member): what a client would read is unclear, so the
		// server is done; every waiting call gets the error.
		p.logf("the server wrote a line that is not one JSON-RPC message (%v): %s", err, termtext.TruncateQuote(string(line), 200))
		p.fail(&FramingError{Server: p.opts.Name, Err: err})
	case env.isResponse():
		p.serverResponse(line, env, id)
	case env.isRequest() || env.isNotification():
		p.serverMessage(line, env, id)
	}
}

// maxHeldDown and maxHeldDownBytes bound the server->client messages held
// while a check runs; past them requests are refused and notifications
// dropped.
const (
	maxHeldDown      = 64
	maxHeldDownBytes = 4 << 20
)

// serverMessage gates a server's request or notification. Nothing the
// server says reaches the client before the surface check passed: while a
// check runs, messages for the client are held (bounded) and delivered in
// order once it passes; after a quarantine or failure the server's requests
// are answered with an error and its notifications dropped. What the proxy
// handles itself (ping, list_changed, its own listen stream) is handled at
// once.
func (p *Proxy) serverMessage(line []byte, env envelope, id []byte) {
	method, _ := stringAt(line, env.method)
	switch method {
	case "ping":
		if env.isRequest() {
			p.up.write(resultLine(id, []byte(`{}`)))
		}
		return
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		select {
		case p.recheck <- struct{}{}:
		default:
		}
		if p.forwardsListChanged(method) {
			p.forwardListChanged() // resources declared data (listchanged.go)
		}
		return // the client sees the lock, which did not change
	case "notifications/subscriptions/acknowledged":
		return // the proxy's own listen stream
	}
	p.mu.Lock()
	st := p.state
	if st == gateChecking && p.downOpen {
		st = gateOpen // the check passed; held calls are being forwarded
	}
	if st == gateChecking {
		if len(p.heldDown) < maxHeldDown && p.heldDownBytes+len(line) <= maxHeldDownBytes {
			p.heldDown = append(p.heldDown, append([]byte(nil), line...))
			p.heldDownBytes += len(line)
			p.mu.Unlock()
			return
		}
	}
	p.mu.Unlock()
	if st != gateOpen {
		if env.isRequest() {
			p.refuseServerRequest(id, method, st)
		}
		return
	}
	p.deliverServerMessage(line, env, id, method)
}

func (p *Proxy) refuseServerRequest(id []byte, method string, st gateState) {
	why := "the server's surface check has not passed"
	switch st {
	case gateQuarantined:
		why = "the server is quarantined"
	case gateFailed, gateClosing:
		why = "the session is ending"
	case gateChecking:
		why = "too many server requests wait for the surface check"
	}
	if up := p.upWriter(); up != nil {
		up.write(errorLine(id, &rpcError{Code: mcpspec.CodeInternalError,
			Message: fmt.Sprintf("mcpsum: \"%s\" not forwarded to the client: %s", termtext.TruncateQuote(method, 80), why)}))
	}
}

func (p *Proxy) upWriter() *lineWriter {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.up
}

// releaseHeldDown delivers the server messages held during a check that
// passed (pass), in order, then lets later ones through; or it refuses
// them (requests) and drops them (notifications).
func (p *Proxy) releaseHeldDown(pass bool) {
	for {
		p.mu.Lock()
		held := p.heldDown
		p.heldDown, p.heldDownBytes = nil, 0
		st := p.state
		if len(held) == 0 {
			if pass && st == gateChecking {
				p.downOpen = true
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for _, line := range held {
			env, id, err := scanEnvelope(line)
			if err != nil {
				continue
			}
			method, _ := stringAt(line, env.method)
			switch {
			case pass && st == gateChecking:
				p.deliverServerMessage(line, env, id, method)
			case env.isRequest():
				p.refuseServerRequest(id, method, st)
			}
		}
	}
}

func (p *Proxy) deliverServerMessage(line []byte, env envelope, id []byte, method string) {
	if env.isRequest() {
		p.serverRequest(line, env, id, method)
		return
	}
	p.serverNotification(line, env, method)
}

// Call sends one of the proxy's own requests to the server and waits for
// the answer, at most the configured timeout (it implements mcpwire.Caller).
func (p *Proxy) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	ch := make(chan ownReply, 1)
	p.mu.Lock()
	if p.state >= gateQuarantined {
		p.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, mcpwire.ErrClosed)
	}
	p.nextUp++
	u := p.nextUp
	p.upPending[u] = &call{own: ch, method: method}
	up := p.up
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.upPending, u)
		p.mu.Unlock()
	}
	if err := up.write(requestLine(itoa(u), method, params)); err != nil {
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
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", method, r.err)
		}
		return r.result, nil
	case <-t.C:
		forget()
		e := &mcpwire.TimeoutError{Method: method, After: timeout, StartTimeout: p.opts.Pin.StartTimeout}
		p.mu.Lock()
		if p.proc != nil {
			e.Stderr = p.proc.StderrTail()
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
	return p.up.write(requestLine(nil, method, params))
}
