package proxy

import (
	"time"
)

// Start-up requests. A legacy server may ask the client something as soon
// as it is initialized: server-filesystem asks roots/list and narrows
// itself to the client's roots. Directly, a client's calls reach such a
// server after it has had the answer (the client connects, answers, then
// calls); through the proxy the client's handshake is answered from the
// lock at once, so its first calls would otherwise race the server's
// start-up and run against every folder of the locked argv.
//
// So calls are held until every request the server sent the client before
// the gate first opened (or the roots/list held for a client that
// initialized later, roots.go) has been answered, bounded by
// startupAnswerWait. Once the answers reached the server, the proxy waits
// for a ping round trip and startupSettle before it forwards the held calls:
// a server applies roots asynchronously (server-filesystem resolves each
// root on the file system first) and the protocol has no signal that it
// has; a ping only proves the answer was read.

// startupAnswerWait bounds how long calls wait for the client's answers to
// the server's start-up requests; past it they go on (as directly, where a
// server that never hears back keeps its own defaults) and the log says so.
const startupAnswerWait = 10 * time.Second

// isStartupAsk reports whether a request the server sends the client now is
// a start-up one (p.mu held).
func (p *Proxy) isStartupAsk() bool { return !p.gate.startup.opened }

// startupAsk records that the request sent to the client as d is a start-up
// one and holds calls until it is answered (p.mu held).
func (p *Proxy) startupAsk(d int64) {
	if p.gate.startup.asks == nil {
		p.gate.startup.asks = map[int64]bool{}
	}
	p.gate.startup.asks[d] = true
	if !p.gate.startup.hold {
		p.gate.startup.hold = true
		time.AfterFunc(startupAnswerWait, func() { p.endStartupHold(true) })
	}
}

// startupAnswered notes that the client's answer to d was written to the
// server; the last one ends the hold.
func (p *Proxy) startupAnswered(d int64) {
	p.mu.Lock()
	if !p.gate.startup.asks[d] {
		p.mu.Unlock()
		return
	}
	delete(p.gate.startup.asks, d)
	p.gate.startup.answered = true
	last := len(p.gate.startup.asks) == 0
	p.mu.Unlock()
	if last {
		go p.endStartupHold(false)
	}
}

// endStartupHold forwards the held calls once the start-up requests were
// answered (or the wait ran out: timedOut).
func (p *Proxy) endStartupHold(timedOut bool) {
	p.mu.Lock()
	if !p.gate.startup.hold || p.gate.startup.ending || (!timedOut && len(p.gate.startup.asks) > 0) || p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return
	}
	p.gate.startup.ending = true
	pending, answered := len(p.gate.startup.asks), p.gate.startup.answered
	p.mu.Unlock()
	if pending > 0 {
		p.logf("the client did not answer %d request(s) the server sent it at start-up within %v; calls go on without the answers", pending, startupAnswerWait)
	}
	if answered {
		p.settle()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.gate.startup.asks)
	if p.gate.state == gateOpen {
		p.forwardHeld() // calls submitted meanwhile still queue behind these
	}
	p.gate.startup.hold, p.gate.startup.ending = false, false
	p.cond.Broadcast()
}
