package proxy

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
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
// has; a ping only proves the answer was read. A server that writes to its
// stderr once it has applied them (server-filesystem: "Updated allowed
// directories from MCP roots") gives the signal the protocol lacks, so
// when no line came since the answer, the calls wait for one, up to
// startupSettleMax: on a loaded machine resolving the roots takes longer
// than startupSettle (CI saw three first calls in a row read outside the
// client's root).

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
	if !p.gate.startup.answered {
		p.gate.startup.mark = p.stderrMark()
	}
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
	if !p.gate.startup.hold || p.gate.startup.ending || p.gate.startup.settling || (!timedOut && len(p.gate.startup.asks) > 0) || p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return
	}
	p.gate.startup.settling = true // calls stay held until the settle is over
	pending, answered, mark := len(p.gate.startup.asks), p.gate.startup.answered, p.gate.startup.mark
	p.mu.Unlock()
	if pending > 0 {
		p.logf("the client did not answer %d request(s) the server sent it at start-up within %v; calls go on without the answers", pending, startupAnswerWait)
	}
	if answered {
		p.settle(mark)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate.startup.ending = true
	clear(p.gate.startup.asks)
	if p.gate.state == gateOpen {
		p.forwardHeld() // calls submitted meanwhile still queue behind these
	}
	p.gate.startup.hold, p.gate.startup.ending, p.gate.startup.settling = false, false, false
	p.cond.Broadcast()
}

// Health. The proxy serves the handshake and the lists from the lock, so a
// client need not wait for a slow server (a cold npx download). But a
// client's own health check is its handshake and first list: answered from
// the lock while the server cannot start at all, it showed the server as
// connected (directly it shows it failed). So the first answers wait until
// the server has answered its own handshake, or healthWindow has passed
// since the proxy started with the server still starting; a server that
// failed by then fails the client's request with the reason, and the proxy
// ends as it does after any failure. A server that starts answers the
// client after its own start-up time (as directly), never later than
// healthWindow.

// healthWindow bounds how long the client's first answers wait for the
// server's start.
const healthWindow = 2 * time.Second

// startupHealth waits as above; when the server failed it answers the
// request id with the reason and returns false.
func (p *Proxy) startupHealth(id []byte) bool {
	p.life.answering.add() // Run lets this answer out before the proxy ends
	defer p.life.answering.done()
	t := time.NewTimer(time.Until(p.life.born.Add(healthWindow)))
	defer t.Stop()
	select {
	case <-p.life.handshook:
	case <-p.life.upFailed:
	case <-t.C:
	}
	p.mu.Lock()
	failed := p.gate.state == gateFailed
	e := p.failureRPC()
	p.mu.Unlock()
	if failed {
		p.replyErr(id, e)
	}
	return !failed
}

// noteClientInfo records the clientInfo of the client's first request (a
// legacy initialize's, or a 2026-07-28 request's _meta) for the proxy's
// handshake with a legacy server.
func (p *Proxy) noteClientInfo(line []byte, r *request, initParams jsonline.Span) {
	select {
	case <-p.life.clientKnown:
		return
	default:
	}
	var info []byte
	if r.modern {
		f, _, _ := jsonline.Fields(line, r.meta, mcpspec.MetaClientInfo)
		info = f[0].Of(line)
	} else if r.method == "initialize" {
		f, _, _ := jsonline.Fields(line, initParams, "clientInfo")
		info = f[0].Of(line)
	} else {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client.upInfo == nil {
		p.client.upInfo = append(json.RawMessage{}, info...)
		close(p.life.clientKnown)
	}
}

// failLinger is how long a proxy whose server failed before its handshake
// goes on answering the client (every request with the reason) unless the
// client leaves first.
const failLinger = 3 * time.Second

// lingerAfterStartFailure: a server that failed before its own handshake
// (it could not start, or a remote one cannot be reached: a variable
// unset, no sign-in) is reported to the client as the answer to its
// handshake. A client may try its handshake a second way after an error
// (the go-sdk client falls back from server/discover to initialize): the
// proxy ends only when the client leaves or failLinger has passed, so that
// second try gets the reason too, not a closed pipe ("Connection closed").
func (p *Proxy) lingerAfterStartFailure(ctx context.Context, clientGone <-chan struct{}) {
	select {
	case <-p.life.handshook:
		return
	default:
	}
	t := time.NewTimer(failLinger)
	defer t.Stop()
	select {
	case <-clientGone:
	case <-ctx.Done():
	case <-t.C:
	}
}

// awaitHealthAnswers gives the failure answers of startupHealth a moment to
// reach the client before the proxy ends.
func (p *Proxy) awaitHealthAnswers() {
	p.life.answering.wait(time.Second)
}
