package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The proxy's upstream handshake declares exactly what lock and verify
// declare (mcpwire's fixed set: roots, sampling and elicitation; the
// clientInfo is the client's own, startup.go), because servers change their surface with the
// client's capabilities: the live surface must be listed the way it was
// locked. Which server→client requests then reach the client: servermsg.go.

// eraLost is a handshake failure that means the server no longer speaks the
// locked era: definitional drift.
type eraLost struct {
	finding lockfile.Finding
	detail  string
}

func (e *eraLost) Error() string { return e.detail }

func eraFinding(locked, observed string) lockfile.Finding {
	return lockfile.Finding{Class: lockfile.Definitional, Kind: lockfile.KindEra, Change: lockfile.Changed, Locked: locked, Observed: observed}
}

// handshake speaks the locked era: initialize + notifications/initialized,
// or server/discover. The answer is classified by mcpwire exactly as verify
// and lock classify it: a recognised "I no longer speak the locked era"
// answer is definitional drift (quarantine); any other JSON-RPC error, a
// timeout or an exit does not show what the server speaks now, so the
// proxy could not decide (the session fails, exit 3).
func (p *Proxy) handshake(ctx context.Context) (*mcpwire.Hello, error) {
	if p.srv.upEra == lockfile.EraModern {
		h, err := mcpwire.ModernAnswer(p.Call(ctx, "server/discover", mcpwire.DiscoverParams()))
		var ee *mcpwire.EraError
		switch {
		case errors.As(err, &ee) && ee.LacksModern:
			f := lockfile.Finding{Class: lockfile.Definitional, Kind: lockfile.KindVersionDropped, Change: lockfile.Removed,
				Locked: p.srv.lock.ProtocolVersion, Observed: string(mustJSON(ee.Supported))}
			return nil, &eraLost{f, ee.Msg}
		case errors.As(err, &ee):
			return nil, &eraLost{eraFinding(lockfile.EraModern, "unknown"), ee.Msg}
		}
		return h, err
	}
	h, err := mcpwire.LegacyAnswer(p.Call(ctx, "initialize", p.initializeParams()))
	var ee *mcpwire.EraError
	switch {
	case errors.As(err, &ee) && ee.ModernOnly:
		return nil, &eraLost{eraFinding(lockfile.EraLegacy, lockfile.EraModern), ee.Msg}
	case errors.As(err, &ee):
		return nil, &eraLost{eraFinding(lockfile.EraLegacy, "unknown"), ee.Msg}
	case err != nil:
		return nil, err
	}
	if err := p.notify("notifications/initialized", nil); err != nil {
		return nil, err
	}
	return h, nil
}

func (p *Proxy) handshakeFailed(err error) {
	var lost *eraLost
	if errors.As(err, &lost) {
		fs := []lockfile.Finding{lost.finding}
		review.Label(fs, p.srv.lock, nil)
		p.quarantineWith(fmt.Sprintf("%s (%s)", describe(fs), lost.detail), fs)
		return
	}
	p.fail(fmt.Errorf("server %q did not complete the %s handshake: %w", p.opts.Name, p.srv.upEra, err))
}

// listenUpstream opens the proxy's own 2026-07-28 listen stream, so list
// changes trigger a new check. Its answer (if any) is ignored.
func (p *Proxy) listenUpstream(h *mcpwire.Hello) {
	params := mustJSON(map[string]any{
		"_meta":         mcpwire.Meta(h),
		"notifications": map[string]bool{"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true},
	})
	p.mu.Lock()
	u := p.ids.Own(&call{Call: idmap.Call{Own: make(chan idmap.Reply, 1)}, method: "subscriptions/listen"})
	up := p.up
	p.mu.Unlock()
	up.WriteLine(jsonline.RequestLine(itoa(u), "subscriptions/listen", params))
}

// check lists the live surface and compares it with the lock. Calls wait
// while it runs; definitional drift quarantines, informational drift is
// logged once and allowed.
func (p *Proxy) check(ctx context.Context) {
	p.closeGate()
	p.mu.Lock()
	hello := p.hello // a renewed remote session replaces it (httpcore.go)
	p.mu.Unlock()
	s, err := mcpwire.ListAll(ctx, p, hello)
	if err != nil {
		p.mu.Lock()
		st := p.gate.state
		p.mu.Unlock()
		var rpc *mcpwire.Error
		switch {
		case st != gateChecking:
			return // failed, quarantined or closing meanwhile
		case errors.As(err, &rpc) || !isTransport(err):
			p.quarantineWith("the live surface could not be listed as locked: "+err.Error(), nil)
		default:
			p.fail(fmt.Errorf("server %q did not answer the surface check: %w", p.opts.Name, err))
		}
		return
	}
	lock := p.srv.lock
	observed, err := launch.EntryFor(lock, hello, s)
	if err != nil {
		p.quarantineWith("the live surface cannot be pinned: "+err.Error(), nil)
		return
	}
	var def []lockfile.Finding
	for _, f := range lockfile.CompareDigests(lock, observed) {
		if f.Class == lockfile.Definitional {
			def = append(def, f)
			continue
		}
		if s := f.String(); !p.gate.seenInfo[s] {
			p.gate.seenInfo[s] = true
			p.logf("informational drift (allowed; the client still sees the locked value): %s", s)
		}
	}
	if len(def) > 0 {
		review.Label(def, lock, observed) // the quarantine error's data says what kind of change each is
		hint := ""
		if review.DataResources(def, lock, observed) {
			hint = review.UnpinnedHint(p.opts.Name, p.opts.Lockfile)
		}
		p.quarantineHinted("its definitions changed since they were locked: "+describe(def), def, hint)
		return
	}
	p.openGate()
}

// isTransport reports errors about the connection rather than the answer.
func isTransport(err error) bool {
	var to *mcpwire.TimeoutError
	var exit *process.ExitError
	return errors.As(err, &to) || errors.As(err, &exit) || errors.Is(err, mcpwire.ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// initializeParams are the proxy's initialize to a legacy server, with the
// client's clientInfo once the client has sent it (at most clientInfoWait).
func (p *Proxy) initializeParams() json.RawMessage {
	t := time.NewTimer(clientInfoWait)
	defer t.Stop()
	select {
	case <-p.life.clientKnown:
	case <-t.C:
	}
	p.mu.Lock()
	info := p.client.upInfo
	p.mu.Unlock()
	if len(info) == 0 {
		return mcpwire.InitializeParams()
	}
	return mcpwire.InitializeParamsAs(info)
}

// waitGate waits while a surface check runs; nil once calls pass, else the
// error every call gets now (quarantine, failure).
func (p *Proxy) waitGate() *jsonline.Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.gate.state == gateChecking {
		p.cond.Wait()
	}
	switch p.gate.state {
	case gateQuarantined:
		return p.gate.quarantine.rpc()
	case gateFailed, gateClosing:
		return p.failureRPCLocked()
	}
	return nil
}

// taskCall sends the proxy's own task request for task id to the server, in
// the server's era.
func (p *Proxy) taskCall(method, id string, extra ...byte) ([]byte, *jsonline.Error) {
	return p.taskCallCtx(context.Background(), method, id, extra...)
}

func (p *Proxy) taskCallCtx(ctx context.Context, method, id string, extra ...byte) ([]byte, *jsonline.Error) {
	params := []byte(`{`)
	if p.srv.upEra == lockfile.EraModern {
		params = append(append(params, `"_meta":{`...), p.modernMetaWith(true)...)
		params = append(params, "},"...)
	}
	params = jsonline.AppendJSON(append(params, `"taskId":`...), id)
	if extra != nil {
		params = append(append(params, ','), extra...)
	}
	params = append(params, '}')
	res, err := p.Call(ctx, method, params)
	if err != nil {
		var me *mcpwire.Error
		if errors.As(err, &me) {
			e := &jsonline.Error{Code: me.Code, Message: me.Message}
			if len(me.Data) > 0 {
				e.Data = me.Data
			}
			return nil, e
		}
		return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: %s for task could not be relayed to server %q: %v", method, p.opts.Name, err)}
	}
	if len(res) == 0 || res[0] != '{' {
		return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: server %q answered %s with a result that is not a JSON object", p.opts.Name, method)}
	}
	return res, nil
}

// clientInfoWait bounds how long the proxy's initialize to a legacy server
// waits for the client's first request (clients send it at once), so that
// the server gets the client's clientInfo, not mcpsum's.
const clientInfoWait = time.Second
