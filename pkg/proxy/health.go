package proxy

import (
	"encoding/json"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
)

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

// awaitHealthAnswers gives the failure answers of startupHealth a moment to
// reach the client before the proxy ends.
func (p *Proxy) awaitHealthAnswers() {
	p.life.answering.wait(time.Second)
}
