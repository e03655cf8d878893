package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
)

// Server→client requests of a legacy server (roots/list, sampling/createMessage,
// elicitation/create). The proxy's upstream session declares mcpsum's fixed
// capability set (mcpwire.ClientCapabilities), so a server may ask for any
// of them; once the surface check lets it through (serverMessage), each
// request reaches a legacy client only if the client declared the capability
// it needs, and the proxy answers the others itself at once (-32601 with a
// message saying why), so a server never waits on a client that cannot
// answer. (A 2026-07-28 client is asked through MRTR only when the running
// call declared the capability: bridgeServerRequest.)

// serverRequest handles a legacy server's request to the client.
func (p *Proxy) serverRequest(line []byte, env jsonline.Envelope, id []byte, method string) {
	p.serverRequestAt(line, env, id, method, false)
}

// serverRequestAt is serverRequest; startup marks a request the server sent
// at start-up even when the gate has opened since (startup.go).
func (p *Proxy) serverRequestAt(line []byte, env jsonline.Envelope, id []byte, method string, startup bool) {
	if method == "elicitation/create" {
		marked, why := p.markElicit(env.Params.Of(line))
		if why != "" {
			p.refuseElicit(id, why)
			return
		}
		line = jsonline.Concat(line[:env.Params.Start], marked, line[env.Params.End:])
		var err error
		if env, id, err = jsonline.ScanEnvelope(line); err != nil {
			p.refuseElicit(id, "the server's elicitation/create was not forwarded: "+err.Error())
			return
		}
	}
	p.mu.Lock()
	if p.client.legacy && p.ids.AsksOpen() >= maxDownPending {
		p.mu.Unlock()
		p.up.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeInternalError,
			Message: fmt.Sprintf("mcpsum: \"%s\" not forwarded: the client has %d requests from the server unanswered", termtext.TruncateQuote(method, 80), maxDownPending)}))
		return
	}
	if p.client.legacy {
		if need, ok := p.clientDeclared(method, line, env); !ok {
			p.mu.Unlock()
			p.refuseUndeclared(id, method, need)
			return
		}
		d := p.ids.Ask(&downReq{upID: append([]byte(nil), id...), method: method})
		if startup || p.isStartupAsk() {
			p.startupAsk(d)
		}
		p.mu.Unlock()
		parts := jsonline.Splice(line, env.ID, itoa(d))
		p.out.WriteLine(parts[0], parts[1], parts[2])
		return
	}
	p.mu.Unlock()
	if p.parkTaskInput(line, env, id, method) {
		return // asked in the task's tasks/get (taskinput.go)
	}
	if p.bridgeServerRequest(line, env, id, method) {
		return
	}
	if method == "roots/list" {
		if p.holdRoots(line, id) {
			return // until the client's next call (roots.go)
		}
		p.up.WriteLine(jsonline.ResultLine(id, []byte(`{"roots":[]}`)))
		return
	}
	p.up.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeMethodNotFound,
		Message: fmt.Sprintf("mcpsum: the client cannot answer \"%s\" now", termtext.TruncateQuote(method, 80))}))
}

func (p *Proxy) serverNotification(line []byte, env jsonline.Envelope, method string) {
	switch method {
	case "notifications/cancelled":
		p.serverCancelled(line, env)
		return
	case "notifications/resources/updated":
		p.resourceUpdated(line, env)
		return
	case "notifications/tasks/status":
		p.mu.Lock()
		legacy := p.client.legacy
		p.mu.Unlock()
		if !legacy {
			return // a 2026-07-28 client polls tasks/get (the extension's notifications come on a listen stream)
		}
	case "notifications/message":
		p.mu.Lock()
		drop := !p.client.legacy && p.srv.upEra == mcpspec.EraLegacy && p.ids.LogWanters() == 0
		p.mu.Unlock()
		if drop {
			return // a 2026-07-28 client gets log messages only for requests that asked
		}
	}
	p.out.WriteLine(line)
}

// serverCancelled forwards a legacy server's cancellation of its own request
// to the client, with the id the client knows.
func (p *Proxy) serverCancelled(line []byte, env jsonline.Envelope) {
	f, _, _ := jsonline.Fields(line, env.Params, "requestId")
	rid := f[0].Of(line)
	if rid == nil {
		return
	}
	p.mu.Lock()
	d := p.ids.TakeDownWhere(func(r *downReq) bool { return r.upID != nil && string(r.upID) == string(rid) })
	p.mu.Unlock()
	if d < 0 {
		return
	}
	parts := jsonline.Splice(line, f[0], itoa(d))
	p.out.WriteLine(parts[0], parts[1], parts[2])
}
