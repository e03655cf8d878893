package proxy

import (
	"encoding/json"
	"strconv"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The client's messages other than the requests the proxy checks and
// forwards (downstream.go): the legacy handshake and a modern client's
// subscriptions/listen, answered from the lock; notifications, above all
// cancellations; and the client's responses to requests the proxy sent it.

// initialize answers a legacy client's handshake from the lock.
func (p *Proxy) initialize(line []byte, env jsonline.Envelope, id []byte) {
	f, _, _ := jsonline.Fields(line, env.Params, "protocolVersion", "capabilities", "clientInfo")
	requested, _ := jsonline.StringAt(line, f[0])
	version := p.srv.initializeVersion(requested)
	p.mu.Lock()
	p.client.legacy = true
	p.client.version = version
	p.client.caps = append(json.RawMessage(nil), f[1].Of(line)...)
	p.client.info = append(json.RawMessage(nil), f[2].Of(line)...)
	p.mu.Unlock()
	p.reply(id, p.srv.initializeResult(version))
	p.releaseRootsToLegacy()
}

// listen acknowledges a modern client's subscriptions/listen. The served
// surface is the lock, which never changes while the proxy runs, so the only
// list_changed sent on it is for resources declared data (subscribe.go);
// the stream stays open until the client cancels it or the session ends.
func (p *Proxy) listen(line []byte, env jsonline.Envelope, id []byte) {
	f, _, _ := jsonline.Fields(line, env.Params, "notifications")
	nf, _, _ := jsonline.Fields(line, f[0], "toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions")
	ack := map[string]any{}
	for i, k := range []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"} {
		if string(nf[i].Of(line)) == "true" {
			ack[k] = true
		}
	}
	uris := p.honoured(line, nf[3])
	if uris != nil {
		ack["resourceSubscriptions"] = uris
	}
	p.subs.Listen(string(id), uris, ack["resourcesListChanged"] == true)
	defer p.syncSubscriptions()
	params := jsonline.AppendJSON(nil, ack)
	b := []byte(`{"notifications":`)
	b = append(b, params...)
	b = append(b, `,"_meta":{"`+mcpspec.MetaSubscriptionID+`":`...)
	b = append(b, id...)
	b = append(b, "}}"...)
	p.out.WriteLine(jsonline.RequestLine(nil, "notifications/subscriptions/acknowledged", b))
}

// clientNotification handles a notification of the client. Only those the
// client's era defines pass (mcpwire.ClientNotification); anything else, a
// request method sent without an id above all, would reach the server past
// the checks every request gets, so it is dropped and logged.
func (p *Proxy) clientNotification(line []byte, env jsonline.Envelope) {
	method, _ := jsonline.StringAt(line, env.Method)
	p.mu.Lock()
	version := mcpspec.Modern
	if p.client.legacy {
		version = p.client.version
	}
	failed := p.gate.state == gateFailed
	p.mu.Unlock()
	if failed {
		return // the server is gone: nothing reaches it, and its failure was said
	}
	if !mcpwire.ClientNotification(version, method) {
		p.logf("dropped the client's notification \"%s\": not a notification a %s client sends a server (a request needs an id)",
			termtext.TruncateQuote(method, 80), version)
		return
	}
	switch method {
	case "notifications/initialized":
		return // the proxy sent its own to the server
	case "notifications/cancelled":
		f, _, _ := jsonline.Fields(line, env.Params, "requestId")
		if f[0].OK() {
			p.cancelFromClient(line, f[0])
		}
		return
	}
	// Other client notifications (progress of a server->client request,
	// roots/list_changed, ...) exist only in the legacy era.
	p.mu.Lock()
	up, ok := p.up, p.gate.state == gateOpen || p.gate.state == gateChecking
	p.mu.Unlock()
	if up != nil && ok && p.srv.upEra == mcpspec.EraLegacy {
		up.WriteLine(line)
	}
}

// cancelFromClient forwards the client's cancellation of request rid with
// the id the server knows, or drops a request that was not forwarded yet.
func (p *Proxy) cancelFromClient(line []byte, rid jsonline.Span) {
	key := string(line[rid.Start:rid.End])
	if p.cancelCollecting(key) || p.cancelWaiting(key) || p.cancelCross(key) {
		return
	}
	p.mu.Lock()
	for i, r := range p.gate.held {
		if string(r.id) == key {
			p.gate.held = append(p.gate.held[:i], p.gate.held[i+1:]...)
			p.cond.Broadcast()
			p.mu.Unlock()
			return
		}
	}
	if p.subs.Unlisten(key) {
		p.mu.Unlock()
		return
	}
	u, c := p.ids.DropClient(key)
	up := p.up
	p.mu.Unlock()
	if c == nil || up == nil {
		return
	}
	p.cancelBridge(c)
	parts := jsonline.Splice(line, rid, strconv.AppendInt(nil, u, 10))
	up.WriteLine(parts[0], parts[1], parts[2])
}

// clientResponse routes the client's answer to a request the proxy sent it.
func (p *Proxy) clientResponse(line []byte, env jsonline.Envelope, id []byte) {
	d, ok := parseID(id)
	p.mu.Lock()
	r := p.ids.TakeDown(d)
	up := p.up
	startup := p.gate.startup.asks[d]
	p.mu.Unlock()
	if !ok || r == nil || (up == nil && r.hook == nil) {
		return // not ours, or late
	}
	if r.bridge != nil {
		p.bridgeAnswer(d, r, line, env)
		return
	}
	if r.hook != nil {
		hookAnswer(r, line, env)
		return
	}
	parts := jsonline.Splice(line, env.ID, r.upID)
	up.WriteLine(parts[0], parts[1], parts[2])
	if startup {
		p.startupAnswered(d)
	}
}

// releaseRootsToLegacy delivers a held roots/list to a client that turned
// out to be legacy (it sent initialize after the server asked).
func (p *Proxy) releaseRootsToLegacy() {
	line := p.roots.Release()
	if line == nil {
		return
	}
	env, id, err := jsonline.ScanEnvelope(line)
	if err == nil {
		p.serverRequestAt(line, env, id, "roots/list", true)
	}
}
