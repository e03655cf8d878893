package proxy

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/tasktable"
)

// Input for a legacy server's task, asked by a 2026-07-28 client. A
// 2025-11-25 task that needs input has status input_required and sends its
// requests (elicitation/create, sampling/createMessage, roots/list, with
// _meta io.modelcontextprotocol/related-task) while the client waits in
// tasks/result. The 2026-07-28 extension shows them in tasks/get as
// inputRequests and takes the answers with tasks/update. So when a
// 2026-07-28 client's tasks/get finds such a task, the proxy calls the
// server's tasks/result itself (once, in the background), keeps the
// server's requests for that task, shows them as inputRequests, and answers
// them from the client's tasks/update; tasks/result's answer is the task's
// result.

const metaRelatedTask = "io.modelcontextprotocol/related-task"

// inputWait is how long a tasks/get waits for the requests of a task that
// says input_required before it reports the task as working.
const inputWait = 2 * time.Second

// taskInput is the proxy's tasks/result of one legacy task
// (internal/tasktable).
type taskInput = tasktable.Input[*serverRequest, *jsonline.Error]

// parkTaskInput keeps a legacy server's request for a task whose
// tasks/result the proxy is waiting on; false when it is for no such task.
func (p *Proxy) parkTaskInput(line []byte, env jsonline.Envelope, id []byte, method string) bool {
	pf, _, _ := jsonline.Fields(line, env.Params, "_meta")
	mf, _, _ := jsonline.Fields(line, pf[0], metaRelatedTask)
	tf, _, _ := jsonline.Fields(line, mf[0], "taskId")
	task, ok := jsonline.StringAt(line, tf[0])
	if !ok || capOf[method] == "" {
		return false
	}
	params := env.Params.Of(line)
	return p.tasks.Park(task, func(key string) *serverRequest {
		return &serverRequest{upID: append([]byte(nil), id...), params: append([]byte(nil), params...), method: method, key: key}
	})
}

// taskInputFor starts (once) the proxy's tasks/result of task id and
// returns its state; nil when maxTasks tasks are waiting for input already.
// The state goes when the client has seen the task end (tasks/get) or
// cancelled it, or when the task is forgotten (rememberTask).
func (p *Proxy) taskInputFor(id string) *taskInput {
	ti, created := p.tasks.InputFor(id)
	if !created {
		return ti
	}
	go func() {
		res, e := p.taskCallCtx(context.WithValue(context.Background(), noTimeout{}, true), "tasks/result", id)
		p.tasks.Finished(ti, res, e)
	}()
	return ti
}

// pendingInputs waits (at most inputWait) for the task's requests and
// returns them as an inputRequests object; nil when there are none.
func (p *Proxy) pendingInputs(r *request, id string) ([]byte, *jsonline.Error) {
	ti := p.taskInputFor(id)
	if ti == nil {
		return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: %d tasks of server %q wait for input already; answer or cancel one (tasks/update, tasks/cancel) and ask again", maxTasks, p.opts.Name)}
	}
	deadline := time.NewTimer(inputWait)
	defer deadline.Stop()
	for {
		reqs, done, ch := p.tasks.State(ti)
		if len(reqs) > 0 || done {
			return p.inputRequests(r, reqs), nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return nil, nil
		}
	}
}

// inputRequests is reqs as inputRequests; a request the 2026-07-28 client
// did not declare the capability for is answered at once with an error, as
// for a legacy client that did not declare it.
func (p *Proxy) inputRequests(r *request, reqs []*serverRequest) []byte {
	var out []byte
	for _, sr := range reqs {
		if !hasClientCap(r, capOf[sr.method]) {
			p.tasks.Take(sr)
			p.refuseUndeclared(sr.upID, sr.method, capOf[sr.method])
			continue
		}
		if out == nil {
			out = []byte{'{'}
		} else {
			out = append(out, ',')
		}
		out = append(jsonline.AppendJSON(out, sr.key), `:{"method":`...)
		out = append(jsonline.AppendJSON(out, sr.method), `,"params":`...)
		out = append(append(out, sr.params...), '}')
	}
	if out == nil {
		return nil
	}
	return append(out, '}')
}

// updateTask answers a 2026-07-28 client's tasks/update for a legacy task:
// each inputResponses member answers the server's request it names.
func (p *Proxy) updateTask(r *request, id string) ([]byte, *jsonline.Error) {
	f, _, _ := jsonline.Fields(r.line, r.env.Params, "inputResponses")
	if !f[0].OK() || r.line[f[0].Start] != '{' {
		return nil, invalidParams("tasks/update needs an inputResponses object")
	}
	reqs := p.tasks.Open(id)
	n := 0
	for _, sr := range reqs {
		rf, _, _ := jsonline.Fields(r.line, f[0], sr.key)
		if resp := rf[0].Of(r.line); resp != nil && p.tasks.Take(sr) {
			if up := p.upWriter(); up != nil {
				up.WriteLine(jsonline.ResultLine(sr.upID, resp))
			}
			n++
		}
	}
	if n == 0 {
		return nil, invalidParams("tasks/update: task %s has no open input request named in inputResponses", quoteID(id))
	}
	return []byte(`{"resultType":"complete"}`), nil
}

// refuseTaskRequests answers the server's requests of a task the table
// forgot with an error (the table calls it without its lock).
func (p *Proxy) refuseTaskRequests(reqs []*serverRequest) {
	up := p.upWriter()
	if up == nil {
		return
	}
	go func() { // the server may be slow to read: not on the caller's time
		for _, sr := range reqs {
			up.WriteLine(jsonline.ErrorLine(sr.upID, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "mcpsum: the task this request belongs to ended or was cancelled"}))
		}
	}()
}
