package proxy

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/upstream"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// submit forwards a client request once the gate is open: at once when it
// is and nothing is held, else after the running check passed (in order).
func (p *Proxy) submit(r *request) {
	p.mu.Lock()
	for (p.gate.state == gateChecking || p.gate.startup.hold) && len(p.gate.held) >= maxHeld {
		p.cond.Wait()
	}
	switch p.gate.state {
	case gateQuarantined:
		e := p.gate.quarantine.rpc()
		p.mu.Unlock()
		p.replyErr(r.id, e)
		return
	case gateFailed, gateClosing:
		e := p.failureRPC()
		p.mu.Unlock()
		p.replyErr(r.id, e)
		return
	case gateOpen:
		if len(p.gate.held) == 0 && !p.gate.startup.hold {
			u, ok := p.register(r)
			up := p.up
			p.mu.Unlock()
			p.sendUp(up, r, u, ok)
			return
		}
	}
	p.gate.held = append(p.gate.held, r)
	p.mu.Unlock()
}

// register records a forwarded request and returns its upstream id; false
// when mcpspec.MaxCallsInFlight calls are in flight already (p.mu held).
func (p *Proxy) register(r *request) (int64, bool) {
	c := &call{Call: idmap.Call{ClientID: r.id, LogLevel: r.logLevel}, method: r.method, modern: r.modern, info: r.info, task: r.task}
	if r.resultInfo != nil {
		c.info = *r.resultInfo
	}
	if p.needsBridge(r) {
		c.req = r
	}
	if r.modern {
		mf, _, _ := jsonline.Fields(r.line, r.meta, mcpspec.MetaClientCapabilities)
		c.caps = append([]byte(nil), mf[0].Of(r.line)...)
	}
	return p.ids.Forward(c)
}

// sendUp sends a registered request to the server; one over the cap on
// calls in flight (not ok) gets an error instead.
func (p *Proxy) sendUp(up upstream.Upstream, r *request, u int64, ok bool) {
	if !ok {
		p.replyErr(r.id, overCap())
		return
	}
	parts := p.upstreamParts(r, u, nil)
	up.WriteLine(parts...) // a failed write surfaces as the server's exit on its reader
}

// closeGate holds new calls while a check runs.
func (p *Proxy) closeGate() {
	p.mu.Lock()
	if p.gate.state == gateOpen {
		p.gate.state = gateChecking
	}
	p.gate.downOpen = false
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
	if p.gate.state == gateChecking {
		p.gate.state = gateOpen
		p.cond.Broadcast()
	}
	p.gate.startup.opened = true
	p.gate.downOpen = false
}

// forwardHeld forwards the held requests in order while the gate lets them
// through: a check passed (gateChecking, from openGateLocked) or the gate
// is open, and no start-up request of the server waits for the client
// (startup.go; calls that come while the hold ends queue behind the held). p.mu held; it is released while each request is sent.
func (p *Proxy) forwardHeld() {
	st := p.gate.state
	for p.gate.state == st && (st == gateChecking || st == gateOpen) && len(p.gate.held) > 0 && (!p.gate.startup.hold || p.gate.startup.ending) {
		r := p.gate.held[0]
		p.gate.held = p.gate.held[1:]
		p.cond.Broadcast()
		if r.modern && p.srv.upEra == lockfile.EraLegacy && isCall(r.method) && p.roots.Holding() {
			// the server asked for roots while this call was held (roots.go)
			p.mu.Unlock()
			f, _, _ := jsonline.Fields(r.line, r.env.Params, "requestState", "inputResponses")
			r = p.rootsForCall(r, f[0], f[1])
			p.mu.Lock()
			if r == nil {
				continue
			}
		}
		u, ok := p.register(r)
		up := p.up
		p.mu.Unlock()
		p.sendUp(up, r, u, ok)
		p.mu.Lock()
	}
}

// maxHeldDown and maxHeldDownBytes bound the server->client messages held
// while a check runs; past them requests are refused and notifications
// dropped.
const (
	maxHeldDown      = 64
	maxHeldDownBytes = 4 << 20
)

// holdDown passes a server message for the client through the gate: held
// (a copy, bounded) while a check runs, to be released later; else it
// reports the state that decides it now (gateOpen: deliver it; any
// other: refuse or drop it).
func (p *Proxy) holdDown(line []byte, release func(p *Proxy, line []byte, deliver bool, st gateState)) (st gateState, held bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st = p.gate.state
	if st == gateChecking && p.gate.downOpen {
		return gateOpen, false // the check passed; held calls are being forwarded
	}
	if st == gateChecking && len(p.gate.heldDown) < maxHeldDown && p.gate.heldDownBytes+len(line) <= maxHeldDownBytes {
		p.gate.heldDown = append(p.gate.heldDown, heldMessage{line: append([]byte(nil), line...), release: release})
		p.gate.heldDownBytes += len(line)
		return st, true
	}
	return st, false
}

// releaseHeldDown releases the server messages held during a check, in
// order: delivered when it passed (pass), then later ones pass too; or
// refused and dropped.
func (p *Proxy) releaseHeldDown(pass bool) {
	for {
		p.mu.Lock()
		held := p.gate.heldDown
		p.gate.heldDown, p.gate.heldDownBytes = nil, 0
		st := p.gate.state
		if len(held) == 0 {
			if pass && st == gateChecking {
				p.gate.downOpen = true
			}
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		for _, h := range held {
			h.release(p, h.line, pass && st == gateChecking, st)
		}
	}
}

// quarantineWith stops the server and makes every later request fail with
// -32002; held and in-flight requests get the same error now.
func (p *Proxy) quarantineWith(reason string, findings []lockfile.Finding) {
	p.quarantineHinted(reason, findings, "")
}

// quarantineHinted is quarantineWith with a hint (another way out) for the
// error and the log; hint may be empty.
func (p *Proxy) quarantineHinted(reason string, findings []lockfile.Finding, hint string) {
	q := &QuarantineError{
		Hint:     hint,
		Server:   p.opts.Name,
		Reason:   reason,
		Findings: findings,
		Next:     fmt.Sprintf("`mcpsum verify --lockfile %s --name %s` to review the change, then `mcpsum lock --lockfile %s --name %s` if you accept it", p.opts.Lockfile, p.opts.Name, p.opts.Lockfile, p.opts.Name),
	}
	p.mu.Lock()
	if p.gate.state == gateQuarantined || p.gate.state == gateFailed || p.gate.state == gateClosing {
		p.mu.Unlock()
		return
	}
	p.gate.state = gateQuarantined
	p.gate.quarantine = q
	up := p.up
	p.mu.Unlock()
	close(p.life.quarDone)
	p.releaseHeldDown(false) // refused and dropped
	p.logf("QUARANTINED: %s; every request now gets error %d; run %s%s", reason, CodeQuarantined, q.Next, q.hintSuffix())
	p.failWaiting(q.rpc())
	if up != nil {
		go up.Stop(p.opts.Grace, p.opts.Grace)
	}
}

// fail records that the server failed (exited, broke the stream, did not
// answer the check) and answers everything waiting.
func (p *Proxy) fail(err error) {
	p.mu.Lock()
	if p.gate.state == gateQuarantined || p.gate.state == gateFailed || p.gate.state == gateClosing {
		p.mu.Unlock()
		return
	}
	p.gate.state = gateFailed
	if !p.gate.startup.opened {
		// it never served a call: say what may help it start (launch.Explain)
		err = launch.Explain(p.opts.Name, p.opts.Entry, p.opts.Pin, err)
	}
	p.gate.failure = err // Run returns it; the command prints it
	p.mu.Unlock()
	p.releaseHeldDown(false) // refused and dropped
	p.failWaiting(p.failureRPCLocked())
	close(p.life.upFailed)
}

func (p *Proxy) failureRPCLocked() *jsonline.Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failureRPC()
}

// failureRPC is the error requests get after a failure or during shutdown (p.mu held).
func (p *Proxy) failureRPC() *jsonline.Error {
	msg := fmt.Sprintf("mcpsum: server %q is not available", p.opts.Name)
	if p.gate.failure != nil {
		msg = fmt.Sprintf("mcpsum: server %q failed: %s", p.opts.Name, hint.Lines(p.gate.failure, ""))
	}
	return &jsonline.Error{Code: mcpspec.CodeInternalError, Message: msg}
}
