package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/upstream"
)

// The proxy's side of a remote upstream (upstream.HTTP): how it is made, and
// what the proxy does when a legacy session was renewed or a listen stream
// reopened.

// remoteUpstream prepares the session with the remote server of the entry.
// A sandbox policy cannot be enforced on a server that is not a process
// here, so it stops the proxy (the lockfile refuses one too).
func (p *Proxy) remoteUpstream(ctx context.Context) (upstream.Upstream, error) {
	if pol := p.opts.Entry.Policy; pol != nil && pol.Sandbox != nil {
		return nil, hint.Errorf("remove policy.sandbox from its entry", "it is a remote server (%s) and has a sandbox policy: there is no process here to confine", p.opts.Entry.URL)
	}
	if p.opts.Remote == nil {
		return nil, errors.New("it is a remote server and the proxy was not told how to reach it")
	}
	spec, err := p.opts.Remote(ctx)
	if err != nil {
		return nil, err
	}
	if spec.MaxMessage <= 0 {
		spec.MaxMessage = p.opts.Pin.MaxLine
	}
	spec.Tools = p.srv.lock.Tools
	spec.Note = func(msg string) { p.logf("%s", msg) }
	return upstream.NewHTTP(spec, mcphttp.Hooks{
		Renewed:    p.sessionRenewed,
		Own:        p.ownRequest,
		Relistened: p.relistened,
		Reauth:     p.opts.Reauth,
		StepUp:     p.opts.StepUp,
	})
}

// errRenewedQuarantined: the renewed session's check did not pass.
var errRenewedQuarantined = errors.New("the server's surface check after its session was renewed did not pass")

// sessionRenewed takes the InitializeResult of a renewed legacy session
// (the locked surface, not the session's first answer, is what it is
// checked against):
// calls are held and the surface (InitializeResult included) is checked
// again, as after a list_changed. The returned wait is for a call of the
// client to retry on the new session: it returns nil once that check
// passed. (The proxy's own requests, the check's lists among them, go on
// at once.)
func (p *Proxy) sessionRenewed(_, result json.RawMessage) (wait func() error, err error) {
	h, err := mcpwire.LegacyAnswer(result, nil)
	if err != nil {
		p.handshakeFailed(err)
		return nil, err
	}
	p.logf("the remote session expired (the server no longer knew it); a new session started; checking its surface again before calls go on")
	p.mu.Lock()
	p.hello = h
	need := p.life.checksStarted + 1
	p.mu.Unlock()
	p.closeGate()
	p.relistened()
	return func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		for p.life.checksDone < need && p.gate.state < gateQuarantined {
			p.cond.Wait()
		}
		if p.gate.state >= gateQuarantined {
			return errRenewedQuarantined
		}
		return nil
	}, nil
}

// ownRequest reports whether id is one of the proxy's own requests.
func (p *Proxy) ownRequest(id []byte) bool {
	u, ok := parseID(id)
	c := p.ids.Pending(u)
	return ok && c != nil && c.Own != nil
}

// relistened asks for a new surface check (a listen stream reopened:
// changes meanwhile were not announced).
func (p *Proxy) relistened() {
	select {
	case p.life.recheck <- struct{}{}:
	default:
	}
}
