package tasktable

import (
	"context"
	"fmt"
	"sync"
)

// Input is the proxy's tasks/result of one legacy task (under Table.mu).
type Input[R comparable, E any] struct {
	reqs    []R    // the server's requests for the task, not answered yet
	result  []byte // tasks/result's result, once done
	err     E      // or its error
	done    bool
	changed chan struct{} // closed and replaced when reqs or done change
}

func (ti *Input[R, E]) signal() {
	close(ti.changed)
	ti.changed = make(chan struct{})
}

// Table are the tasks of a session.
type Table[I any, R comparable, E any] struct {
	max, maxQueued int
	refuse         func([]R) // answers the requests of a forgotten task (t.mu not held)

	mu         sync.Mutex
	created    map[string]I                  // tasks created through this session -> the creating call
	order      []string                      // their ids, oldest first
	inputs     map[string]*Input[R, E]       // legacy tasks whose tasks/result the proxy waits on
	crossWaits map[string]context.CancelFunc // cross-era task requests being answered, by client id
	nextKey    int64                         // names the server's requests in inputRequests
}

// New returns an empty table that remembers at most max tasks (and waits
// on the results of as many), keeps at most maxQueued requests per task,
// and hands the open requests of a task it forgets to refuse.
func New[I any, R comparable, E any](max, maxQueued int, refuse func([]R)) *Table[I, R, E] {
	return &Table[I, R, E]{max: max, maxQueued: maxQueued, refuse: refuse,
		created: map[string]I{}, inputs: map[string]*Input[R, E]{}, crossWaits: map[string]context.CancelFunc{}}
}

// Remember records task id as created by the call info describes; past
// max it forgets the oldest, and its input wait.
func (t *Table[I, R, E]) Remember(id string, info I) {
	t.mu.Lock()
	var reqs []R
	if _, known := t.created[id]; !known {
		t.order = append(t.order, id)
		if len(t.order) > t.max {
			evicted := t.order[0]
			delete(t.created, evicted)
			t.order = t.order[1:]
			reqs = t.takeInputLocked(evicted)
		}
	}
	t.created[id] = info
	t.mu.Unlock()
	t.refuseAll(reqs)
}

// Info is the call that created task id.
func (t *Table[I, R, E]) Info(id string) (I, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ci, ok := t.created[id]
	return ci, ok
}

// IDs are the tasks created through this session, oldest first.
func (t *Table[I, R, E]) IDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.order...)
}

// Park keeps a legacy server's request for task, whose tasks/result the
// proxy waits on: request builds it around the key that names it in
// inputRequests. False when the proxy waits on no such task or the task
// has maxQueued requests open already.
func (t *Table[I, R, E]) Park(task string, request func(key string) R) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := t.inputs[task]
	if ti == nil || ti.done || len(ti.reqs) >= t.maxQueued {
		return false
	}
	t.nextKey++
	ti.reqs = append(ti.reqs, request(fmt.Sprintf("mcpsum-task-%d", t.nextKey)))
	ti.signal()
	return true
}

// InputFor returns the input wait of task id; created when it is new (the
// caller starts its tasks/result), nil when max tasks wait already.
func (t *Table[I, R, E]) InputFor(id string) (ti *Input[R, E], created bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ti = t.inputs[id]; ti != nil {
		return ti, false
	}
	if len(t.inputs) >= t.max {
		for tid, x := range t.inputs {
			if x.done {
				delete(t.inputs, tid)
			}
		}
		if len(t.inputs) >= t.max {
			return nil, false
		}
	}
	ti = &Input[R, E]{changed: make(chan struct{})}
	t.inputs[id] = ti
	return ti, true
}

// Inputs counts the input waits (for tests).
func (t *Table[I, R, E]) Inputs() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.inputs)
}

// Finished records the answer of ti's tasks/result.
func (t *Table[I, R, E]) Finished(ti *Input[R, E], res []byte, e E) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti.result, ti.err, ti.done = res, e, true
	ti.signal()
}

// State is ti's open requests, whether its tasks/result answered, and the
// channel closed at its next change.
func (t *Table[I, R, E]) State(ti *Input[R, E]) ([]R, bool, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ti.reqs, ti.done, ti.changed
}

// Open are the server's requests for task id not answered yet.
func (t *Table[I, R, E]) Open(id string) []R {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ti := t.inputs[id]; ti != nil {
		return append([]R(nil), ti.reqs...)
	}
	return nil
}

// Take removes sr from its task's open requests; false when it was
// answered already.
func (t *Table[I, R, E]) Take(sr R) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ti := range t.inputs {
		for i, x := range ti.reqs {
			if x == sr {
				ti.reqs = append(ti.reqs[:i:i], ti.reqs[i+1:]...)
				return true
			}
		}
	}
	return false
}

// Result is the answer of the proxy's own tasks/result of task id, when it
// has one.
func (t *Table[I, R, E]) Result(id string) ([]byte, E, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := t.inputs[id]
	if ti == nil || !ti.done {
		var none E
		return nil, none, false
	}
	return ti.result, ti.err, true
}

// DropInput forgets the proxy's tasks/result of task id; the server's
// requests for it still open are refused.
func (t *Table[I, R, E]) DropInput(id string) {
	t.mu.Lock()
	reqs := t.takeInputLocked(id)
	t.mu.Unlock()
	t.refuseAll(reqs)
}

// takeInputLocked removes the input wait of task id and returns its open
// requests (t.mu held).
func (t *Table[I, R, E]) takeInputLocked(id string) []R {
	ti := t.inputs[id]
	delete(t.inputs, id)
	if ti == nil {
		return nil
	}
	reqs := ti.reqs
	ti.reqs = nil
	return reqs
}

func (t *Table[I, R, E]) refuseAll(reqs []R) {
	if len(reqs) > 0 {
		t.refuse(reqs)
	}
}
