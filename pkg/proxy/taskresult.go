package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"time"
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
func (p *Proxy) modernTaskResult(ctx context.Context, r *request, id string) ([]byte, *rpcError) {
	answered := map[string]bool{} // input requests of this task answered already
	for {
		res, e := p.taskCallCtx(ctx, "tasks/get", id)
		if e != nil {
			return nil, e
		}
		f, _, err := fields(res, span{0, len(res)}, "status", "result", "error", "pollIntervalMs", "inputRequests")
		if err != nil {
			return nil, badTask(p.opts.Name, err)
		}
		status, _ := stringAt(res, f[0])
		switch status {
		case "completed":
			if !f[1].ok() || res[f[1].s] != '{' {
				return nil, badTask(p.opts.Name, errors.New("a completed task without a result object"))
			}
			body := f[1].of(res)
			if he := p.opts.Hooks.BeforeResult(p.taskInfo(id, r), ResultInfo{Body: body}); he != nil {
				return nil, he.rpc()
			}
			return legacyResult(res, f[1]), nil
		case "failed":
			ef, _, _ := fields(res, f[2], "code", "message", "data")
			code, okc := intAt(res, ef[0])
			msg, okm := stringAt(res, ef[1])
			if !okc || !okm {
				return nil, badTask(p.opts.Name, errors.New("a failed task without an error object"))
			}
			e := &rpcError{Code: code, Message: msg}
			if ef[2].ok() {
				e.Data = json.RawMessage(append([]byte(nil), ef[2].of(res)...))
			}
			return nil, e
		case "cancelled":
			return nil, &rpcError{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: task %s of server %q was cancelled: it has no result", quoteID(id), p.opts.Name)}
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

// cancelledErr is what a request the client cancelled ends with (never sent).
func cancelledErr() *rpcError {
	return &rpcError{Code: CodeCallCancelled, Message: "the client cancelled the request"}
}
