package proxy

import (
	"context"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The task methods: same era, forwarded like any call; across eras, answered
// with the proxy's own requests in the server's era (see tasks.go).

// taskRequest sends a task method (the table says which client era has
// which, methods.go): to a server of the client's era through the gate; to
// one of the other era, answered by the proxy from the server's own task
// methods (crossTask).
func (p *Proxy) taskRequest(r *request) {
	upModern := p.srv.upEra == lockfile.EraModern
	f, _, _ := jsonline.Fields(r.line, r.env.Params, "taskId")
	id, ok := jsonline.StringAt(r.line, f[0])
	if !ok && r.method != "tasks/list" {
		p.replyErr(r.id, invalidParams("%s needs a string taskId", r.method))
		return
	}
	if r.modern == upModern {
		if r.method == "tasks/result" || r.method == "tasks/get" && r.modern {
			ci := p.taskInfo(id, r)
			r.resultInfo = &ci
		}
		p.beforeCall(r, "", p.submit)
		return
	}
	p.beforeCall(r, "", func(r *request) {
		// The client may cancel the request (notifications/cancelled):
		// then the proxy's own requests for it stop and it gets no answer.
		ctx, cancel := context.WithCancel(context.Background())
		key := string(r.id)
		p.tasks.Wait(key, cancel)
		go func() {
			res, e := p.crossTask(ctx, r, id)
			p.tasks.Waited(key, ctx)
			if ctx.Err() != nil {
				return // cancelled by the client: nothing is sent
			}
			cancel()
			if ge := p.waitGate(); ge != nil {
				e = ge // quarantined or failed meanwhile: nothing of the server's goes out
			}
			if e != nil {
				p.replyErr(r.id, e)
				return
			}
			p.reply(r.id, res)
		}()
	})
}

// crossTask answers a task method of a client of the other era.
func (p *Proxy) crossTask(ctx context.Context, r *request, id string) ([]byte, *jsonline.Error) {
	if r.modern {
		return p.legacyTaskForModern(r, id)
	}
	switch r.method {
	case "tasks/get":
		return p.modernTaskAsLegacy(id)
	case "tasks/cancel":
		if _, e := p.taskCall("tasks/cancel", id); e != nil {
			return nil, e
		}
		return p.modernTaskAsLegacy(id)
	case "tasks/list":
		return p.listTasks()
	}
	return p.modernTaskResult(ctx, r, id)
}

// modernTaskAsLegacy is a 2026-07-28 server's task id as a legacy Task.
func (p *Proxy) modernTaskAsLegacy(id string) ([]byte, *jsonline.Error) {
	res, e := p.taskCall("tasks/get", id)
	if e != nil {
		return nil, e
	}
	m, err := taskMembers(res, jsonline.Span{Start: 0, End: len(res)}, toLegacyNames, "")
	if err != nil {
		return nil, badTask(p.opts.Name, err)
	}
	return append(append([]byte{'{'}, m...), '}'), nil
}

// listTasks answers a legacy client's tasks/list (2026-07-28 has none):
// the tasks created through this session that the server still knows.
func (p *Proxy) listTasks() ([]byte, *jsonline.Error) {
	ids := p.tasks.IDs()
	out := []byte(`{"tasks":[`)
	n := 0
	for _, id := range ids {
		t, e := p.modernTaskAsLegacy(id)
		if e != nil {
			continue // expired or unknown to the server now
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, t...)
		n++
	}
	return append(out, "]}"...), nil
}

// legacyTaskForModern answers a 2026-07-28 client's tasks/get or
// tasks/cancel from a legacy server.
func (p *Proxy) legacyTaskForModern(r *request, id string) ([]byte, *jsonline.Error) {
	if r.method == "tasks/update" {
		return p.updateTask(r, id)
	}
	if r.method == "tasks/cancel" {
		if _, e := p.taskCall("tasks/cancel", id); e != nil {
			return nil, e
		}
		p.tasks.DropInput(id)
		return []byte(`{"resultType":"complete"}`), nil
	}
	t, e := p.taskCall("tasks/get", id)
	if e != nil {
		return nil, e
	}
	f, _, err := jsonline.Fields(t, jsonline.Span{Start: 0, End: len(t)}, "status", "statusMessage")
	if err != nil {
		return nil, badTask(p.opts.Name, err)
	}
	status, _ := jsonline.StringAt(t, f[0])
	var inputs []byte
	if status == "input_required" {
		if inputs, e = p.pendingInputs(r, id); e != nil {
			return nil, e
		}
		if inputs == nil {
			status = "working" // no request to show (yet): the client polls again
		}
	}
	m, err := taskMembers(t, jsonline.Span{Start: 0, End: len(t)}, toModernNames, status)
	if err != nil {
		return nil, badTask(p.opts.Name, err)
	}
	out := append([]byte(`{"resultType":"complete",`), m...)
	if status == "completed" || status == "failed" || status == "cancelled" {
		// The task ended: once its end is answered, the proxy's
		// tasks/result of it is not needed any more.
		defer p.tasks.DropInput(id)
	}
	result := func() ([]byte, *jsonline.Error) {
		if res, e, ok := p.tasks.Result(id); ok {
			return res, e
		}
		return p.taskCall("tasks/result", id)
	}
	switch status {
	case "input_required":
		out = append(append(out, `,"inputRequests":`...), inputs...)
	case "completed":
		res, e := result()
		if e != nil {
			return nil, e
		}
		if he := p.opts.Hooks.BeforeResult(p.taskInfo(id, r), ResultInfo{Body: res}); he != nil {
			return nil, he.rpc()
		}
		if ins := modernResultMembers(res, jsonline.Span{Start: 0, End: len(res)}, "tools/call"); ins != nil {
			res = jsonline.Concat(res[:1], ins, res[1:])
		}
		out = append(append(out, `,"result":`...), res...)
	case "failed":
		msg, _ := jsonline.StringAt(t, f[1])
		_, e := result()
		if e == nil {
			e = &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "the task failed"}
			if msg != "" {
				e.Message += ": " + msg
			}
		}
		out = append(append(out, `,"error":`...), mustJSON(e)...)
	}
	return append(out, '}'), nil
}
