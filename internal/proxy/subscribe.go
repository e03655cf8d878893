package proxy

import (
	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Resource subscriptions of a 2026-07-28 client (a legacy client's
// resources/subscribe in front of a 2026-07-28 server works the same way). Its subscriptions/listen
// may name resourceSubscriptions; the proxy honours the URIs that are
// locked (a resource or a template match) when the locked server advertises
// resources.subscribe, subscribes upstream in the server's era (a legacy
// server gets resources/subscribe, a 2026-07-28 one a listen stream of the
// proxy's own), and delivers each notifications/resources/updated to every
// listen stream of the client that named the URI, tagged with that stream's
// subscriptionId. Updates are server->client traffic: they are held while a
// check runs and dropped after a quarantine like every other notification.

// canSubscribe reports whether the locked server advertises resource
// subscriptions.
func (s *served) canSubscribe() bool {
	r, ok := s.caps["resources"]
	if !ok {
		return false
	}
	f, err := jsonscan.Fields(r, "subscribe")
	return err == nil && string(f[0]) == "true"
}

// honoured returns the URIs of a listen's resourceSubscriptions the proxy
// takes: locked ones, when the server advertises subscriptions.
func (p *Proxy) honoured(line []byte, v jsonline.Span) []string {
	if !v.OK() || !p.srv.canSubscribe() {
		return nil
	}
	uris, ok := jsonscan.Strings(v.Of(line))
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, u := range uris {
		if !seen[u] && p.srv.lockedURI(u) {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// syncSubscriptions subscribes upstream to every URI a client listen names
// and the server was not subscribed to yet (once the handshake is done).
func (p *Proxy) syncSubscriptions() {
	p.mu.Lock()
	if p.hello == nil || p.up == nil || p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return
	}
	h, up := p.hello, p.up
	lines := p.subscribeLines(h)
	p.mu.Unlock()
	for _, l := range lines {
		up.WriteLine(l)
	}
}

// resourceUpdated delivers a server's notifications/resources/updated.
func (p *Proxy) resourceUpdated(line []byte, env jsonline.Envelope) {
	f, _, _ := jsonline.Fields(line, env.Params, "uri")
	uri, ok := jsonline.StringAt(line, f[0])
	if !ok {
		return
	}
	p.mu.Lock()
	legacy := p.client.legacy
	p.mu.Unlock()
	p.deliverUpdated(line, uri, legacy, p.srv.upEra == lockfile.EraLegacy)
}

// legacySubscribe answers a legacy client's resources/subscribe or
// unsubscribe in front of a 2026-07-28 server: the proxy keeps the
// subscription and listens upstream for the URI.
func (p *Proxy) legacySubscribe(id []byte, uri string, on bool) {
	if !p.srv.canSubscribe() {
		p.replyErr(id, &jsonline.Error{Code: mcpspec.CodeMethodNotFound, Message: "method not found: the locked server does not advertise resources.subscribe"})
		return
	}
	p.subs.SetLegacy(uri, on)
	p.reply(id, []byte(`{}`))
	p.syncSubscriptions()
}

// subscribeLines returns the requests that subscribe the server (which
// spoke hello) to every URI a client subscribed to and the server was not
// subscribed to yet, counted as subscribed upstream from now.
func (p *Proxy) subscribeLines(h *mcpwire.Hello) [][]byte {
	todo := p.subs.Unsubscribed()
	var lines [][]byte
	for _, u := range todo {
		id := itoa(p.ids.Own(&call{Call: idmap.Call{Own: make(chan idmap.Reply, 1)}, method: "resources/subscribe"}))
		if h.Era == lockfile.EraModern {
			params := mustJSON(map[string]any{"_meta": mcpwire.Meta(h), "notifications": map[string][]string{"resourceSubscriptions": {u}}})
			lines = append(lines, jsonline.RequestLine(id, "subscriptions/listen", params))
		} else {
			lines = append(lines, jsonline.RequestLine(id, "resources/subscribe", mustJSON(map[string]string{"uri": u})))
		}
	}
	return lines
}

// deliverUpdated delivers a server's notifications/resources/updated of uri: to
// a legacy client as sent (legacyUp: the server speaks its era), to each
// listen stream of a 2026-07-28 client that named the URI with that
// stream's subscriptionId.
func (p *Proxy) deliverUpdated(line []byte, uri string, legacyClient, legacyUp bool) {
	sub, ids := p.subs.Updated(uri)
	switch {
	case legacyClient && legacyUp:
		p.out.WriteLine(line) // the client subscribed through the proxy as sent
		return
	case legacyClient:
		if sub { // its own era's notification, without the listen stream's _meta
			p.out.WriteLine(jsonline.RequestLine(nil, "notifications/resources/updated", append(jsonline.AppendJSON([]byte(`{"uri":`), uri), '}')))
		}
		return
	}
	for _, id := range ids {
		b := []byte(`{"uri":`)
		b = jsonline.AppendJSON(b, uri)
		b = append(b, `,"_meta":{"io.modelcontextprotocol/subscriptionId":`...)
		b = append(b, id...)
		b = append(b, "}}"...)
		p.out.WriteLine(jsonline.RequestLine(nil, "notifications/resources/updated", b))
	}
}

// listChangedTo tells the client its resource list changed: a legacy
// client once, a 2026-07-28 client on each listen stream that asked.
func (p *Proxy) listChangedTo(legacyClient bool) {
	if legacyClient {
		p.out.WriteLine(jsonline.RequestLine(nil, resourcesListChanged, nil))
		return
	}
	for _, id := range p.subs.ListChanged() {
		b := []byte(`{"_meta":{"` + mcpspec.MetaSubscriptionID + `":`)
		b = append(b, id...)
		p.out.WriteLine(jsonline.RequestLine(nil, resourcesListChanged, append(b, "}}"...)))
	}
}

// list_changed. The client is served the lock, so for pinned kinds a
// server's list_changed only makes the proxy check the live surface again
// (a real change quarantines it; an unchanged one leaves the client's list
// as it was, so there is nothing to tell it). Resources and templates a
// reviewer declared data (policy.unpinned) are the server's live list, so
// their list_changed reaches the client as directly: a legacy client gets
// the notification, a 2026-07-28 client on each listen stream that asked
// for resourcesListChanged.

const resourcesListChanged = "notifications/resources/list_changed"

// forwardsListChanged reports whether a server's list_changed of method
// goes on to the client.
func (p *Proxy) forwardsListChanged(method string) bool {
	return method == resourcesListChanged && (p.srv.lock.IsUnpinned("resources") || p.srv.lock.IsUnpinned("resourceTemplates"))
}

// forwardListChanged tells the client its resource list changed.
func (p *Proxy) forwardListChanged() {
	p.mu.Lock()
	if p.gate.state >= gateQuarantined {
		p.mu.Unlock()
		return
	}
	legacy := p.client.legacy
	p.mu.Unlock()
	p.listChangedTo(legacy)
}
