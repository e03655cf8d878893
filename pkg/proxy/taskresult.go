package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
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
