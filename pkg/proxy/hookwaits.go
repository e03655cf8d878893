package proxy

import (
	"encoding/json"
	"sync"
)

// hookWaits are the client calls waiting for a hook's verdict, under a lock
// of their own (the hooks seam, hooks.go): each call's cancellation and
// the questions its hook asked the client. The part is handed the id map,
// where those questions take their ids.
type hookWaits struct {
	ids *idMap

	mu    sync.Mutex
	calls map[string]*hookCall // by client id
}

func newHookWaits(ids *idMap) *hookWaits {
	return &hookWaits{ids: ids, calls: map[string]*hookCall{}}
}

// add records hc as the call key waiting for its verdict.
func (w *hookWaits) add(key string, hc *hookCall) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls[key] = hc
}

// decided forgets hc once its verdict came; true when the client had
// cancelled it.
func (w *hookWaits) decided(key string, hc *hookCall) (cancelled bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls[key] == hc {
		delete(w.calls, key)
	}
	return hc.cancelled
}

// count is the number of calls waiting for a verdict.
func (w *hookWaits) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.calls)
}

// ask records a question hc's hook asks the client (method) and returns
// the id it goes out under; false when the client cancelled the call. done
// gets the client's answer.
func (w *hookWaits) ask(hc *hookCall, method string, done func(json.RawMessage, *CallError)) (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if hc.cancelled {
		return 0, false
	}
	var d int64
	d = w.ids.Ask(&downReq{method: method, hook: func(res json.RawMessage, e *CallError) {
		w.unask(hc, d, false)
		done(res, e)
	}})
	if hc.asks == nil {
		hc.asks = map[int64]bool{}
	}
	hc.asks[d] = true
	return d, true
}

// unask forgets hc's question d (answered, or never sent: then it leaves
// the id map too).
func (w *hookWaits) unask(hc *hookCall, d int64, unsent bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if unsent {
		w.ids.TakeDown(d)
	}
	delete(hc.asks, d)
}

// takeAsks removes hc's open questions and returns their ids.
func (w *hookWaits) takeAsks(hc *hookCall) []int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids, _ := w.ids.TakeDowns(keys(hc.asks))
	hc.asks = nil
	return ids
}

// cancel marks the call key cancelled by the client and takes its open
// questions out; false when key waits for no verdict.
func (w *hookWaits) cancel(key string) ([]int64, []*downReq, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hc := w.calls[key]
	if hc == nil {
		return nil, nil, false
	}
	delete(w.calls, key)
	hc.cancelled = true
	ids, reqs := w.ids.TakeDowns(keys(hc.asks))
	hc.asks = nil
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
