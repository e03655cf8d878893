package proxy

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

// submit forwards a client request once the gate is open: at once when it
// is and nothing is held, else after the running check passed (in order).
func (p *Proxy) submit(r *request) {
	p.mu.Lock()
	for (p.state == gateChecking || p.startup.hold) && len(p.held) >= maxHeld {
		p.cond.Wait()
	}
	switch p.state {
	case gateQuarantined:
		e := p.quarantine.rpc()
		p.mu.Unlock()
		p.replyErr(r.id, e)
		return
	case gateFailed, gateClosing:
		e := p.failureRPC()
		p.mu.Unlock()
		p.replyErr(r.id, e)
		return
	case gateOpen:
		if len(p.held) == 0 && !p.startup.hold {
			u := p.register(r)
			up := p.up
			p.mu.Unlock()
			p.sendUp(up, r, u)
			return
		}
	}
	p.held = append(p.held, r)
	p.mu.Unlock()
}

// register records a forwarded request and returns its upstream id (p.mu held).
func (p *Proxy) register(r *request) int64 {
	p.nextUp++
	u := p.nextUp
	c := &call{clientID: r.id, method: r.method, logLevel: r.logLevel, modern: r.modern, info: r.info, task: r.task}
	if r.resultInfo != nil {
		c.info = *r.resultInfo
	}
	if p.needsBridge(r) {
		c.req = r
	}
	if r.modern {
		mf, _, _ := fields(r.line, r.meta, mcpspec.MetaClientCapabilities)
		c.caps = append([]byte(nil), mf[0].of(r.line)...)
	}
	p.upPending[u] = c
	p.byClient[string(r.id)] = u
	if r.logLevel {
		p.logWanted++
	}
	return u
}

func (p *Proxy) sendUp(up *lineWriter, r *request, u int64) {
	parts := p.upstreamParts(r, u, nil)
	up.write(parts...) // a failed write surfaces as the server's exit on its reader
}

// closeGate holds new calls while a check runs.
func (p *Proxy) closeGate() {
	p.mu.Lock()
	if p.state == gateOpen {
		p.state = gateChecking
	}
	p.downOpen = false
	p.mu.Unlock()
}

// openGate forwards the held requests in order, then lets calls through,
// then delivers what the server sent for the client meanwhile.
func (p *Proxy) openGate() {
	p.releaseHeldDown(true)
	p.openGateLocked()
}

func (p *Proxy) openGateLocked() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forwardHeld()
	if p.state == gateChecking {
		p.state = gateOpen
		p.cond.Broadcast()
	}
	p.startup.opened = true
	p.downOpen = false
}

// forwardHeld forwards the held requests in order while the gate lets them
// through: a check passed (gateChecking, from openGateLocked) or the gate
// is open, and no start-up request of the server waits for the client
// (startup.go; calls that come while the hold ends queue behind the held). p.mu held; it is released while each request is sent.
func (p *Proxy) forwardHeld() {
	st := p.state
	for p.state == st && (st == gateChecking || st == gateOpen) && len(p.held) > 0 && (!p.startup.hold || p.startup.ending) {
		r := p.held[0]
		p.held = p.held[1:]
		p.cond.Broadcast()
		if p.heldRoots != nil && r.modern && p.srv.upEra == lockfile.EraLegacy && isCall(r.method) {
			// the server asked for roots while this call was held (roots.go)
			p.mu.Unlock()
			f, _, _ := fields(r.line, r.env.params, "requestState", "inputResponses")
			r = p.rootsForCall(r, f[0], f[1])
			p.mu.Lock()
			if r == nil {
				continue
			}
		}
		u := p.register(r)
		up := p.up
		p.mu.Unlock()
		p.sendUp(up, r, u)
		p.mu.Lock()
	}
}

// quarantineWith stops the server and makes every later request fail with
// -32002; held and in-flight requests get the same error now.
func (p *Proxy) quarantineWith(reason string, findings []lockfile.Finding) {
	q := &QuarantineError{
		Server:   p.opts.Name,
		Reason:   reason,
		Findings: findings,
		Next:     fmt.Sprintf("`mcpsum verify --lockfile %s --name %s` to review the change, then `mcpsum lock --lockfile %s --name %s` if you accept it", p.opts.Lockfile, p.opts.Name, p.opts.Lockfile, p.opts.Name),
	}
	p.mu.Lock()
	if p.state == gateQuarantined || p.state == gateFailed || p.state == gateClosing {
		p.mu.Unlock()
		return
	}
	p.state = gateQuarantined
	p.quarantine = q
	proc := p.proc
	p.mu.Unlock()
	close(p.quarDone)
	p.releaseHeldDown(false) // refused and dropped
	p.logf("QUARANTINED: %s; every request now gets error %d; run %s", reason, CodeQuarantined, q.Next)
	p.failWaiting(q.rpc())
	if proc != nil {
		go proc.Stop(p.grace)
	}
}

// fail records that the server failed (exited, broke the stream, did not
// answer the check) and answers everything waiting.
func (p *Proxy) fail(err error) {
	p.mu.Lock()
	if p.state == gateQuarantined || p.state == gateFailed || p.state == gateClosing {
		p.mu.Unlock()
		return
	}
	p.state = gateFailed
	if !p.startup.opened {
		// it never served a call: say what may help it start (pin.Explain)
		err = pin.Explain(p.opts.Name, p.opts.Entry, p.opts.Pin, err)
	}
	p.failure = err // Run returns it; the command prints it
	p.mu.Unlock()
	p.releaseHeldDown(false) // refused and dropped
	p.failWaiting(p.failureRPCLocked())
	close(p.upFailed)
}

func (p *Proxy) failureRPCLocked() *rpcError {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failureRPC()
}

// failureRPC is the error requests get after a failure or during shutdown (p.mu held).
func (p *Proxy) failureRPC() *rpcError {
	msg := fmt.Sprintf("mcpsum: server %q is not available", p.opts.Name)
	if p.failure != nil {
		msg = fmt.Sprintf("mcpsum: server %q failed: %v", p.opts.Name, p.failure)
	}
	return &rpcError{Code: mcpspec.CodeInternalError, Message: msg}
}

// writeLines writes lines to the client, giving up after a while when the
// client does not read (shutdown must not hang on a stuck client).
func (p *Proxy) writeLines(lines [][]byte) {
	if len(lines) == 0 {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, l := range lines {
			if p.out.write(l) != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
