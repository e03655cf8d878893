package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/hookwait"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// hookCall is one client call waiting for a hook's verdict; it is the
// Session the hook sees, so the questions it asks the client belong to the
// call and are withdrawn with it.
type hookCall struct {
	p    *Proxy
	r    *request
	wait hookwait.Call // cancelled by the client? its open AskClient requests
}

// AskClient implements Session for one call.
func (hc *hookCall) AskClient(method string, params json.RawMessage, done func(json.RawMessage, *CallError)) error {
	p := hc.p
	p.mu.Lock()
	if !p.client.legacy {
		p.mu.Unlock()
		return ErrNoClientRequests
	}
	if p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return errors.New("the session is ending")
	}
	d, ok := p.waits.Ask(&hc.wait, func(unask func()) *downReq {
		return &downReq{method: method, hook: func(res json.RawMessage, e *CallError) {
			unask()
			done(res, e)
		}}
	})
	p.mu.Unlock()
	if !ok {
		return errors.New("the call was cancelled")
	}
	if err := p.out.WriteLine(jsonline.RequestLine(itoa(d), method, params)); err != nil {
		p.waits.Unask(&hc.wait, d, true)
		return err
	}
	return nil
}

// CancelAsks implements Session.
func (hc *hookCall) CancelAsks(reason string) {
	hc.p.withdraw(hc.takeAsks(), reason)
}

// takeAsks removes the call's open questions from the id map.
func (hc *hookCall) takeAsks() []int64 { return hc.p.waits.TakeAsks(&hc.wait) }

// withdraw tells the client the proxy no longer waits for these requests.
func (p *Proxy) withdraw(ids []int64, reason string) {
	for _, d := range ids {
		params := fmt.Appendf(nil, `{"requestId":%d,"reason":%s}`, d, jsonline.AppendJSON(nil, reason))
		p.out.WriteLine(jsonline.RequestLine(nil, "notifications/cancelled", params))
	}
}

// ClientHello implements Session.
func (hc *hookCall) ClientHello() (string, json.RawMessage) {
	p := hc.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.client.legacy {
		return "", nil
	}
	return p.client.version, p.client.caps
}

// cancelWaiting handles the client's cancellation of a call that waits for a
// hook's verdict: its questions are withdrawn at the client, their done
// functions get CodeCallCancelled, and the verdict, when it comes, is dropped.
func (p *Proxy) cancelWaiting(key string) bool {
	ids, reqs, ok := p.waits.Cancel(key)
	if !ok {
		return false
	}
	p.withdraw(ids, "the client cancelled the call")
	for _, r := range reqs {
		r.hook(nil, &CallError{Code: CodeCallCancelled, Message: "the client cancelled the call"})
	}
	return true
}

// hookAnswer hands the client's answer to an AskClient request to its hook.
func hookAnswer(r *downReq, line []byte, env jsonline.Envelope) {
	if env.Err.OK() {
		f, _, _ := jsonline.Fields(line, env.Err, "code", "message")
		code, _ := intAt(line, f[0])
		msg, _ := jsonline.StringAt(line, f[1])
		r.hook(nil, &CallError{Code: code, Message: msg})
		return
	}
	r.hook(append(json.RawMessage(nil), env.Result.Of(line)...), nil)
}

// callInfo is the CallInfo of a client request.
func callInfo(r *request, name string) CallInfo {
	return CallInfo{Method: r.method, Name: name, ClientModern: r.modern}
}

// decideOnce makes a decide function that acts only the first time.
func decideOnce(fn func(Verdict)) func(Verdict) {
	var o sync.Once
	return func(v Verdict) { o.Do(func() { fn(v) }) }
}

// beforeCall passes a call the proxy would forward through the hooks, then
// submits it (or answers it as the hook decided). While the verdict is
// pending the call is in p.waits, so a cancellation from the client
// withdraws the hook's questions and makes the verdict moot.
func (p *Proxy) beforeCall(r *request, name string, forward func(*request)) {
	r.info = callInfo(r, name)
	params := append([]byte(nil), r.env.Params.Of(r.line)...)
	hc := &hookCall{p: p, r: r}
	key := string(r.id)
	p.waits.Add(key, &hc.wait)
	p.opts.Hooks.BeforeCall(r.info, params, hc, decideOnce(func(v Verdict) {
		if p.waits.Decided(key, &hc.wait) {
			return // the client cancelled it: no answer, nothing forwarded
		}
		hc.CancelAsks("the call was decided")
		switch {
		case v.Refuse != nil:
			p.replyErr(r.id, v.Refuse.rpc())
		case v.Answer != nil:
			p.reply(r.id, v.Answer)
		case v.Params != nil:
			nr, err := r.withParams(v.Params)
			if err != nil {
				p.replyErr(r.id, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: a policy hook returned bad params: " + err.Error()})
				return
			}
			forward(nr)
		default:
			forward(r)
		}
	}))
}
