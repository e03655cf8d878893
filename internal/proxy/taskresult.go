package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// The cross-era tasks/result: a legacy client waiting on a 2026-07-28
// server's task, which the proxy polls with tasks/get (and cancels when the
// client cancels its request).

// cancelCross stops the cross-era task request the client cancelled;
// false when key names none.
func (p *Proxy) cancelCross(key string) bool {
	return p.tasks.CancelWait(key)
}

// modernTaskResult answers a legacy client's tasks/result from a 2026-07-28
// server: poll tasks/get until the task ends, then its result or error.
func (p *Proxy) modernTaskResult(ctx context.Context, r *request, id string) ([]byte, *jsonline.Error) {
	answered := map[string]bool{} // input requests of this task answered already
	for {
		res, e := p.taskCallCtx(ctx, "tasks/get", id)
		if e != nil {
			return nil, e
		}
		f, _, err := jsonline.Fields(res, jsonline.Span{Start: 0, End: len(res)}, "status", "result", "error", "pollIntervalMs", "inputRequests")
		if err != nil {
			return nil, badTask(p.opts.Name, err)
		}
		status, _ := jsonline.StringAt(res, f[0])
		switch status {
		case "completed":
			if !f[1].OK() || res[f[1].Start] != '{' {
				return nil, badTask(p.opts.Name, errors.New("a completed task without a result object"))
			}
			body := f[1].Of(res)
			if he := p.opts.Hooks.BeforeResult(p.taskInfo(id, r), ResultInfo{Body: body}); he != nil {
				return nil, he.rpc()
			}
			return legacyResult(res, f[1]), nil
		case "failed":
			ef, _, _ := jsonline.Fields(res, f[2], "code", "message", "data")
			code, okc := intAt(res, ef[0])
			msg, okm := jsonline.StringAt(res, ef[1])
			if !okc || !okm {
				return nil, badTask(p.opts.Name, errors.New("a failed task without an error object"))
			}
			e := &jsonline.Error{Code: code, Message: msg}
			if ef[2].OK() {
				e.Data = json.RawMessage(append([]byte(nil), ef[2].Of(res)...))
			}
			return nil, e
		case "cancelled":
			return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: task %s of server %q was cancelled: it has no result", quoteID(id), p.opts.Name)}
		case "input_required":
			resp, e := p.askForTask(ctx, id, res, f[4], answered)
			if e != nil {
				return nil, e
			}
			if resp != nil {
				if _, e := p.taskCallCtx(ctx, "tasks/update", id, append([]byte(`"inputResponses":`), resp...)...); e != nil {
					return nil, e
				}
				continue
			}
		case "working":
		default:
			return nil, badTask(p.opts.Name, fmt.Errorf("unknown task status %q", status))
		}
		wait := time.Second
		if ms, ok := intAt(res, f[3]); ok {
			wait = time.Duration(ms) * time.Millisecond
		}
		poll := time.NewTimer(min(max(wait, minPoll), maxPoll))
		select {
		case <-poll.C:
		case <-ctx.Done():
			poll.Stop()
			return nil, cancelledErr()
		}
	}
}

// Input for a 2026-07-28 server's task, asked of a legacy client: the
// inputRequests of an input_required task become the legacy era's requests
// to the client while it waits in tasks/result (taskops.go), and the
// answers go back with tasks/update.

// maxTaskInputs bounds the input requests of one task the proxy relays.
const maxTaskInputs = 64

// askForTask sends a 2026-07-28 task's input requests (the ones not
// answered yet) to the legacy client as its era's requests and returns the
// inputResponses object for tasks/update; nil when all were answered
// already. A request the client did not declare the capability for, or
// one it answers with an error, ends tasks/result with an error.
func (p *Proxy) askForTask(ctx context.Context, id string, b []byte, reqs jsonline.Span, answered map[string]bool) ([]byte, *jsonline.Error) {
	type ask struct {
		key, method string
		params      []byte
	}
	var asks []ask
	_, err := jsonscan.Members(b[:reqs.End], reqs.Start, func(key string, _, vs, ve int) error {
		f, _, err := jsonline.Fields(b, jsonline.Span{Start: vs, End: ve}, "method", "params")
		method, ok := jsonline.StringAt(b, f[0])
		if err != nil || !ok {
			return fmt.Errorf("input request %q has no method", key)
		}
		if !answered[key] {
			asks = append(asks, ask{key, method, f[1].Of(b)})
		}
		return nil
	})
	if err != nil || !reqs.OK() || b[reqs.Start] != '{' {
		return nil, badTask(p.opts.Name, fmt.Errorf("an input_required task without valid inputRequests (%v)", err))
	}
	if len(asks) == 0 {
		return nil, nil
	}
	if len(answered)+len(asks) > maxTaskInputs {
		return nil, badTask(p.opts.Name, fmt.Errorf("more than %d input requests for one task", maxTaskInputs))
	}
	out := []byte{'{'}
	for i, a := range asks {
		res, e := p.askLegacyClient(ctx, a.method, a.params)
		if e != nil {
			e.Message = fmt.Sprintf("mcpsum: task %s of server %q needs input from the client: %s", quoteID(id), p.opts.Name, e.Message)
			return nil, e
		}
		answered[a.key] = true
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(jsonline.AppendJSON(out, a.key), ':'), res...)
	}
	return append(out, '}'), nil
}

// askLegacyClient sends a request to the legacy client and waits for its
// answer; a capability the client did not declare is an error at once.
func (p *Proxy) askLegacyClient(ctx context.Context, method string, params []byte) (json.RawMessage, *jsonline.Error) {
	if params == nil {
		params = []byte(`{}`)
	}
	if method == "elicitation/create" {
		marked, why := p.markElicit(params)
		if why != "" {
			return nil, &jsonline.Error{Code: mcpspec.CodeInvalidParams, Message: why}
		}
		params = marked
	}
	line := jsonline.RequestLine([]byte("0"), method, params)
	env, _, err := jsonline.ScanEnvelope(line)
	if err != nil {
		return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: "malformed input request: " + err.Error()}
	}
	type answer struct {
		res json.RawMessage
		e   *CallError
	}
	ch := make(chan answer, 1)
	p.mu.Lock()
	if need, ok := p.clientDeclared(method, line, env); !ok || capOf[method] == "" {
		p.mu.Unlock()
		if need == "" {
			need = "a capability for " + method
		}
		return nil, &jsonline.Error{Code: mcpspec.CodeMethodNotFound, Message: fmt.Sprintf("the client did not declare the %s capability, so the proxy cannot ask it %q; cancel the task with tasks/cancel", need, method)}
	}
	d := p.ids.Ask(&downReq{method: method, hook: func(res json.RawMessage, e *CallError) { ch <- answer{res, e} }})
	p.mu.Unlock()
	if err := p.out.WriteLine(jsonline.RequestLine(itoa(d), method, params)); err != nil {
		p.ids.TakeDown(d)
		return nil, &jsonline.Error{Code: mcpspec.CodeInternalError, Message: err.Error()}
	}
	var a answer
	select {
	case a = <-ch:
	case <-ctx.Done(): // the client cancelled tasks/result: the request is void
		if p.ids.TakeDown(d) != nil {
			p.withdraw([]int64{d}, "the client cancelled the request it belongs to")
		}
		return nil, cancelledErr()
	}
	if a.e != nil {
		return nil, &jsonline.Error{Code: a.e.Code, Message: fmt.Sprintf("the client answered %s with error %d: %s", method, a.e.Code, a.e.Message)}
	}
	return a.res, nil
}
