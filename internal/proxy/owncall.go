package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// The proxy's own requests to the server (handshake, checks, ping, the
// task calls it makes for a client of the other era).

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

// noTimeout marks a context whose Call waits without the per-answer
// timeout (a tasks/result waits for the user's input).
type noTimeout struct{}

// startupSettle is the pause after the start-up answers reached the
// server; startupSettleMax bounds the wait for a stderr line after them.
const (
	startupSettle    = 100 * time.Millisecond
	startupSettleMax = time.Second
)

// stderrMark is how many lines the server wrote to its stderr so far (0
// when the proxy does not read its stderr).
func (p *Proxy) stderrMark() uint64 {
	if p.stderrLines == nil {
		return 0
	}
	n, _ := p.stderrLines.Lines()
	return n
}

// settle waits until the server has read what the proxy sent it (a ping
// round trip, bounded), then startupSettle, and then, when the server
// wrote no stderr line since the answers (mark: its line count then), for
// one until startupSettleMax has passed since the ping (startup.go).
func (p *Proxy) settle(mark uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p.Call(ctx, "ping", nil) // an error (a server without ping) still means it read the answer
	time.Sleep(startupSettle)
	if p.stderrLines == nil {
		return
	}
	t := time.NewTimer(startupSettleMax - startupSettle)
	defer t.Stop()
	for {
		n, changed := p.stderrLines.Lines()
		if n > mark {
			return
		}
		select {
		case <-changed:
		case <-t.C:
			return
		case <-p.life.upFailed:
			return
		}
	}
}
