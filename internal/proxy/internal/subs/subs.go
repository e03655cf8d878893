package subs

import "sync"

// Table are the subscriptions of one session. A stream is named by the
// client's request id of its subscriptions/listen (the JSON bytes).
type Table struct {
	mu          sync.Mutex
	listens     map[string]map[string]bool // open subscriptions/listen of a modern client -> its resource URIs
	listChanged map[string]bool            // those that asked for resourcesListChanged
	upSubs      map[string]bool            // resource URIs subscribed upstream
	legacySubs  map[string]bool            // a legacy client's resources/subscribe to a 2026-07-28 server
}

// New returns an empty table.
func New() *Table {
	return &Table{listens: map[string]map[string]bool{}, listChanged: map[string]bool{}, upSubs: map[string]bool{}, legacySubs: map[string]bool{}}
}

// Listen records a modern client's open subscriptions/listen (its id) with
// the resource URIs it subscribes to and whether it asked for
// resourcesListChanged.
func (t *Table) Listen(id string, uris []string, listChanged bool) {
	set := map[string]bool{}
	for _, u := range uris {
		set[u] = true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listens[id] = set
	if listChanged {
		t.listChanged[id] = true
	}
}

// Unlisten ends the listen stream id (the client cancelled it); false when
// id is no open stream.
func (t *Table) Unlisten(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.listens[id]; !ok {
		return false
	}
	delete(t.listens, id)
	delete(t.listChanged, id)
	return true
}

// SetLegacy records a legacy client's resources/subscribe (on) or
// resources/unsubscribe of uri.
func (t *Table) SetLegacy(uri string, on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if on {
		t.legacySubs[uri] = true
	} else {
		delete(t.legacySubs, uri)
	}
}

// Unsubscribed returns the URIs a client subscribed to that the server is
// not subscribed to yet, and counts them as subscribed upstream from now.
func (t *Table) Unsubscribed() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var todo []string
	want := func(u string) {
		if !t.upSubs[u] {
			t.upSubs[u] = true
			todo = append(todo, u)
		}
	}
	for _, uris := range t.listens {
		for u := range uris {
			want(u)
		}
	}
	for u := range t.legacySubs {
		want(u)
	}
	return todo
}

// Updated says who gets an update of uri: whether a legacy client
// subscribed to it, and the listen streams that named it.
func (t *Table) Updated(uri string) (legacy bool, streams []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, uris := range t.listens {
		if uris[uri] {
			streams = append(streams, id)
		}
	}
	return t.legacySubs[uri], streams
}

// ListChanged are the listen streams that asked for resourcesListChanged.
func (t *Table) ListChanged() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []string
	for id := range t.listChanged {
		ids = append(ids, id)
	}
	return ids
}
