package tasktable

import "context"

// The cross-era task requests being answered (a client's tasks/get,
// tasks/result ... the proxy answers by calling the server), by the
// client's request id.

// Wait records the cancel function of the client's cross-era task request
// key; an older one under the same id ends.
func (t *Table[I, R, E]) Wait(key string, cancel context.CancelFunc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.crossWaits[key]; old != nil {
		old() // a client reusing a running request's id: the older one ends
	}
	t.crossWaits[key] = cancel
}

// Waited forgets the request key once answered (unless ctx, its own, was
// cancelled: the entry may be a newer request's).
func (t *Table[I, R, E]) Waited(key string, ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ctx.Err() == nil {
		delete(t.crossWaits, key)
	}
}

// CancelWait stops the cross-era task request key; false when none runs.
func (t *Table[I, R, E]) CancelWait(key string) bool {
	t.mu.Lock()
	cancel := t.crossWaits[key]
	delete(t.crossWaits, key)
	t.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}
