package proxy

import (
	"encoding/json"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The server's messages, as the reader of the upstream hands them over one
// at a time (stream.go streams long results itself): responses go to
// results.go; requests and notifications pass the gate (held while a check
// runs, refused or dropped after a quarantine or failure) before
// serverRequest (below) delivers them to the client.

// fromServer routes one message of the server.
func (p *Proxy) fromServer(line []byte) {
	env, id, err := jsonline.CheckServerLine(line)
	switch {
	case err != nil:
		// Not exactly one JSON-RPC message (two on one line, broken JSON, a
		// repeated member): what a client would read is unclear, so the
		// server is done; every waiting call gets the error.
		p.logf("the server wrote a line that is not one JSON-RPC message (%v): %s", err, termtext.TruncateQuote(string(line), 200))
		p.fail(&FramingError{Server: p.opts.Name, Err: err})
	case env.IsResponse():
		p.serverResponse(line, env, id)
	case env.IsRequest() || env.IsNotification():
		p.serverMessage(line, env, id)
	}
}

// serverMessage gates a server's request or notification. Nothing the
// server says reaches the client before the surface check passed: while a
// check runs, messages for the client are held (bounded) and delivered in
// order once it passes; after a quarantine or failure the server's requests
// are answered with an error and its notifications dropped. What the proxy
// handles itself (ping, list_changed, its own listen stream) is handled at
// once.
func (p *Proxy) serverMessage(line []byte, env jsonline.Envelope, id []byte) {
	method, _ := jsonline.StringAt(line, env.Method)
	switch method {
	case "ping":
		if env.IsRequest() {
			p.up.WriteLine(jsonline.ResultLine(id, []byte(`{}`)))
		}
		return
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		select {
		case p.life.recheck <- struct{}{}:
		default:
		}
		if p.forwardsListChanged(method) {
			p.forwardListChanged() // resources declared data (subscribe.go)
		}
		return // the client sees the lock, which did not change
	case "notifications/subscriptions/acknowledged":
		return // the proxy's own listen stream
	}
	st, held := p.holdDown(line, (*Proxy).releaseServerMessage)
	if held {
		return
	}
	if st != gateOpen {
		if env.IsRequest() {
			p.refuseServerRequest(id, method, st)
		}
		return
	}
	p.deliverServerMessage(line, env, id, method)
}

func (p *Proxy) refuseServerRequest(id []byte, method string, st gateState) {
	why := "the server's surface check has not passed"
	switch st {
	case gateQuarantined:
		why = "the server is quarantined"
	case gateFailed, gateClosing:
		why = "the session is ending"
	case gateChecking:
		why = "too many server requests wait for the surface check"
	}
	if up := p.upWriter(); up != nil {
		up.WriteLine(jsonline.ErrorLine(id, &jsonline.Error{Code: mcpspec.CodeInternalError,
			Message: fmt.Sprintf("mcpsum: \"%s\" not forwarded to the client: %s", termtext.TruncateQuote(method, 80), why)}))
	}
}

// releaseServerMessage is what becomes of a server message the gate held
// (holdDown) once the check ended: delivered when it passed (deliver),
// else refused (a request) or dropped (a notification).
func (p *Proxy) releaseServerMessage(line []byte, deliver bool, st gateState) {
	env, id, err := jsonline.ScanEnvelope(line)
	if err != nil {
		return
	}
	method, _ := jsonline.StringAt(line, env.Method)
	switch {
	case deliver:
		p.deliverServerMessage(line, env, id, method)
	case env.IsRequest():
		p.refuseServerRequest(id, method, st)
	}
}

func (p *Proxy) deliverServerMessage(line []byte, env jsonline.Envelope, id []byte, method string) {
	if env.IsRequest() {
		p.serverRequest(line, env, id, method)
		return
	}
	p.serverNotification(line, env, method)
}

func (p *Proxy) serverResponse(line []byte, env jsonline.Envelope, id []byte) {
	u, ok := parseID(id)
	p.mu.Lock()
	c := p.ids.Pending(u)
	if ok && c != nil {
		if c.upReq != nil && c.Own == nil {
			c.parked = append([]byte(nil), line...) // the client has yet to retry; it gets this then
			p.mu.Unlock()
			return
		}
		p.ids.Drop(u, c)
		c.Cancelled = false
	}
	p.mu.Unlock()
	if !ok || c == nil {
		return // a late answer to a cancelled request, or not ours
	}
	if c.Own != nil {
		r := idmap.Reply{Result: append(json.RawMessage(nil), env.Result.Of(line)...)} // line is the read buffer
		if env.Err.OK() {
			e, perr := mcpwire.ParseError(env.Err.Of(line))
			if perr != nil {
				e = &mcpwire.Error{Code: mcpspec.CodeInternalError, Message: "malformed error object: " + perr.Error()}
			}
			r = idmap.Reply{Err: e}
		}
		c.Own <- r
		return
	}
	if c.req != nil && p.bridgeResult(c, line, env) {
		return
	}
	p.resultToClient(c, line, env)
}

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
