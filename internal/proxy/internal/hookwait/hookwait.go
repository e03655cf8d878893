package hookwait

import "sync"

// Call is what the part knows of one call waiting for a verdict; the
// proxy's record of the call holds it.
type Call struct {
	cancelled bool           // the client cancelled the call (Waits.mu)
	asks      map[int64]bool // open questions, by the id sent to the client (Waits.mu)
}

// IDs is the id map as the part uses it: D is the proxy's record of a
// request to the client.
type IDs[D any] interface {
	Ask(r D) int64
	TakeDown(d int64) D
	TakeDowns(ds []int64) (open []int64, reqs []D)
}

// Waits are the calls waiting for a verdict, by client id.
type Waits[D any] struct {
	ids IDs[D]

	mu    sync.Mutex
	calls map[string]*Call
}

// New returns an empty Waits whose questions take their ids in ids.
func New[D any](ids IDs[D]) *Waits[D] {
	return &Waits[D]{ids: ids, calls: map[string]*Call{}}
}

// Add records c as the call key waiting for its verdict.
func (w *Waits[D]) Add(key string, c *Call) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[key] = c
}

// Decided forgets c once its verdict came; true when the client had
// cancelled it.
func (w *Waits[D]) Decided(key string, c *Call) (cancelled bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls[key] == c {
		delete(w.calls, key)
	}
	return c.cancelled
}

// Count is the number of calls waiting for a verdict.
func (w *Waits[D]) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls)
}

// Ask records a question c's hook asks the client and returns the id it
// goes out under; false when the client cancelled the call. question
// builds the request recorded in the id map; it is handed unask, which the
// request calls when the client's answer comes.
func (w *Waits[D]) Ask(c *Call, question func(unask func()) D) (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c.cancelled {
		return 0, false
	}
	var d int64
	d = w.ids.Ask(question(func() { w.Unask(c, d, false) }))
	if c.asks == nil {
		c.asks = map[int64]bool{}
	}
	c.asks[d] = true
	return d, true
}

// Unask forgets c's question d (answered, or never sent: then it leaves
// the id map too).
func (w *Waits[D]) Unask(c *Call, d int64, unsent bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if unsent {
		w.ids.TakeDown(d)
	}
	delete(c.asks, d)
}

// TakeAsks removes c's open questions and returns their ids.
func (w *Waits[D]) TakeAsks(c *Call) []int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids, _ := w.ids.TakeDowns(keys(c.asks))
	c.asks = nil
	return ids
}

// Cancel marks the call key cancelled by the client and takes its open
// questions out; false when key waits for no verdict.
func (w *Waits[D]) Cancel(key string) ([]int64, []D, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.calls[key]
	if c == nil {
		return nil, nil, false
	}
	delete(w.calls, key)
	c.cancelled = true
	ids, reqs := w.ids.TakeDowns(keys(c.asks))
	c.asks = nil
	return ids, reqs, true
}

// keys are the keys of a set of ids.
func keys(set map[int64]bool) []int64 {
	ks := make([]int64, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	return ks
}
