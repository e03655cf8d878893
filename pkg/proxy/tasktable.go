package proxy

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/upstream"
)

// taskTable are the tasks of this session, under a lock of their own: the
// tasks created through it, the legacy tasks whose tasks/result the proxy
// waits on with the server's requests for them (taskinput.go), and the
// cross-era task requests being answered (taskops.go). The part is handed
// the upstream (nil until the server started): the requests of a task it
// forgets are answered there with an error.
type taskTable struct {
	up func() upstream.Upstream

	mu         sync.Mutex
	created    map[string]CallInfo           // tasks created through this session -> the creating call
	order      []string                      // their ids, oldest first
	inputs     map[string]*taskInput         // legacy tasks whose tasks/result the proxy waits on
	crossWaits map[string]context.CancelFunc // cross-era task requests being answered, by client id
	nextKey    int64                         // names the server's requests in inputRequests
}

func newTaskTable(up func() upstream.Upstream) *taskTable {
	return &taskTable{up: up, created: map[string]CallInfo{}, inputs: map[string]*taskInput{}, crossWaits: map[string]context.CancelFunc{}}
}

// remember records task id as created by the call info describes; past
// maxTasks it forgets the oldest, and its input wait.
func (t *taskTable) remember(id string, info CallInfo) {
	t.mu.Lock()
	var reqs []*serverRequest
	if _, known := t.created[id]; !known {
		t.order = append(t.order, id)
		if len(t.order) > maxTasks {
			evicted := t.order[0]
			delete(t.created, evicted)
			t.order = t.order[1:]
			reqs = t.takeInputLocked(evicted)
		}
	}
	t.created[id] = info
	t.mu.Unlock()
	t.refuse(reqs)
}

// info is the call that created task id.
func (t *taskTable) info(id string) (CallInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ci, ok := t.created[id]
	return ci, ok
}

// ids are the tasks created through this session, oldest first.
func (t *taskTable) ids() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.order...)
}

// park keeps a legacy server's request (its id upID) for task, whose
// tasks/result the proxy waits on; false when it waits on no such task or
// the task has maxQueuedInputs requests open already.
func (t *taskTable) park(task string, upID, params []byte, method string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := t.inputs[task]
	if ti == nil || ti.done || len(ti.reqs) >= maxQueuedInputs {
		return false
	}
	t.nextKey++
	ti.reqs = append(ti.reqs, &serverRequest{upID: append([]byte(nil), upID...), params: append([]byte(nil), params...), method: method,
		key: fmt.Sprintf("mcpsum-task-%d", t.nextKey)})
	ti.signal()
	return true
}

// inputFor returns the input wait of task id; created when it is new (the
// caller starts its tasks/result), nil when maxTasks tasks wait already.
func (t *taskTable) inputFor(id string) (ti *taskInput, created bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ti = t.inputs[id]; ti != nil {
		return ti, false
	}
	if len(t.inputs) >= maxTasks {
		for tid, x := range t.inputs {
			if x.done {
				delete(t.inputs, tid)
			}
		}
		if len(t.inputs) >= maxTasks {
			return nil, false
		}
	}
	ti = &taskInput{changed: make(chan struct{})}
	t.inputs[id] = ti
	return ti, true
}

// finished records the answer of ti's tasks/result.
func (t *taskTable) finished(ti *taskInput, res []byte, e *jsonline.Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti.result, ti.err, ti.done = res, e, true
	ti.signal()
}

// state is ti's open requests, whether its tasks/result answered, and the
// channel closed at its next change.
func (t *taskTable) state(ti *taskInput) ([]*serverRequest, bool, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ti.reqs, ti.done, ti.changed
}

// open are the server's requests for task id not answered yet.
func (t *taskTable) open(id string) []*serverRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ti := t.inputs[id]; ti != nil {
		return append([]*serverRequest(nil), ti.reqs...)
	}
	return nil
}

// take removes sr from its task's open requests; false when it was
// answered already.
func (t *taskTable) take(sr *serverRequest) bool {
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

// result is the answer of the proxy's own tasks/result of task id, when it
// has one.
func (t *taskTable) result(id string) ([]byte, *jsonline.Error, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ti := t.inputs[id]
	if ti == nil || !ti.done {
		return nil, nil, false
	}
	return ti.result, ti.err, true
}

// dropInput forgets the proxy's tasks/result of task id; the server's
// requests for it still open are answered with an error.
func (t *taskTable) dropInput(id string) {
	t.mu.Lock()
	reqs := t.takeInputLocked(id)
	t.mu.Unlock()
	t.refuse(reqs)
}

// takeInputLocked removes the input wait of task id and returns its open
// requests (t.mu held).
func (t *taskTable) takeInputLocked(id string) []*serverRequest {
	ti := t.inputs[id]
	delete(t.inputs, id)
	if ti == nil {
		return nil
	}
	reqs := ti.reqs
	ti.reqs = nil
	return reqs
}

// refuse answers the server's requests of a forgotten task with an error.
func (t *taskTable) refuse(reqs []*serverRequest) {
	if len(reqs) == 0 {
		return
	}
	up := t.up()
	if up == nil {
		return
	}
	go func() { // the server may be slow to read: not on the caller's time
		for _, sr := range reqs {
			up.WriteLine(jsonline.ErrorLine(sr.upID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the task this request belongs to ended or was cancelled"}))
		}
	}()
}

// wait records the cancel function of the client's cross-era task request
// key; an older one under the same id ends.
func (t *taskTable) wait(key string, cancel context.CancelFunc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.crossWaits[key]; old != nil {
		old() // a client reusing a running request's id: the older one ends
	}
	t.crossWaits[key] = cancel
}

// waited forgets the request key once answered (unless ctx, its own, was
// cancelled: the entry may be a newer request's).
func (t *taskTable) waited(key string, ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ctx.Err() == nil {
		delete(t.crossWaits, key)
	}
}

// cancelWait stops the cross-era task request key; false when none runs.
func (t *taskTable) cancelWait(key string) bool {
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
