package proxy

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
