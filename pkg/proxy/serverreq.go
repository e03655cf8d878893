package proxy

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
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

// clientDeclared reports whether the legacy client's initialize declared
// the capability a server→client request needs, and names it (p.mu held).
// Requests outside roots, sampling and elicitation need none here. An
// elicitation needs elicitation.url for mode "url", and elicitation.form
// (or an elicitation object naming no mode, the 2025-06-18 form) otherwise.
func (p *Proxy) clientDeclared(method string, line []byte, env jsonline.Envelope) (string, bool) {
	key := capOf[method]
	if key == "" {
		return "", true
	}
	return declared(p.client.caps, method, key, line, env.Params)
}

// declared reports whether the capabilities object caps (a legacy client's
// from initialize, or a 2026-07-28 request's from its _meta) declares
// capability key for a request with method and params; see clientDeclared.
func declared(caps []byte, method, key string, line []byte, params jsonline.Span) (string, bool) {
	f, ok, _ := jsonline.Fields(caps, jsonline.Span{Start: 0, End: len(caps)}, key)
	if !ok || !f[0].OK() || string(f[0].Of(caps)) == "null" {
		return key, false
	}
	if method != "elicitation/create" {
		return key, true
	}
	pf, _, _ := jsonline.Fields(line, params, "mode")
	mode, _ := jsonline.StringAt(line, pf[0])
	modes, _, _ := jsonline.Fields(caps, f[0], "form", "url")
	switch {
	case mode == "url":
		return "elicitation.url", modes[1].OK()
	case modes[0].OK() || !modes[1].OK():
		return "elicitation.form", true
	}
	return "elicitation.form", false
}

// checkInputRequests checks every entry of an input_required result's
// inputRequests (the object at sp in line) before any is passed on: MRTR
// allows only the three client requests, and each needs a capability that
// caps declares. It returns the refusal to send the client ("" if none).
func checkInputRequests(caps, line []byte, sp jsonline.Span) string {
	var refusal string
	_, err := jsonscan.Members(line[:sp.End], sp.Start, func(key string, _, vs, ve int) error {
		f, _, _ := jsonline.Fields(line, jsonline.Span{Start: vs, End: ve}, "method", "params")
		method, _ := jsonline.StringAt(line, f[0])
		capKey := capOf[method]
		if capKey == "" {
			refusal = fmt.Sprintf("\"%s\", which is not a request a server may make of a client", termtext.TruncateQuote(method, 80))
			return errStop
		}
		if need, ok := declared(caps, method, capKey, line, f[1]); !ok {
			refusal = fmt.Sprintf("%s, which needs the %s capability the client did not declare", method, need)
			return errStop
		}
		return nil
	})
	if err != nil && refusal == "" {
		refusal = "an inputRequests value that is not an object of requests"
	}
	if refusal == "" {
		return ""
	}
	return "mcpsum: the server asked for input through " + refusal + "; the proxy did not forward it and the call fails"
}

// maxDownPending bounds the server's requests forwarded to the client and
// not answered yet; past it the proxy answers the server with an error.
const maxDownPending = 64

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
