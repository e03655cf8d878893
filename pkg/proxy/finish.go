package proxy

import (
	"context"
	"fmt"
	"time"
)

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

// answerTimeout is --timeout-secs: how long a server may take to answer.
func (p *Proxy) answerTimeout() time.Duration {
	if p.opts.Pin.Timeout > 0 {
		return p.opts.Pin.Timeout
	}
	return 30 * time.Second
}
