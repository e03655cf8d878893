package proxy

import (
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Tasks across eras. 2025-11-25 has core tasks: a tools/call with a "task"
// member answers {task:{taskId,status,ttl,pollInterval,…}}, and the client
// uses tasks/get, tasks/result (blocks until the task ends, then the call's
// result), tasks/list and tasks/cancel. 2026-07-28 moved them to the
// extension io.modelcontextprotocol/tasks: a client declares it in a
// request's clientCapabilities.extensions, the server may answer tools/call
// with {resultType:"task",taskId,status,ttlMs,pollIntervalMs,…}, and the
// client uses tasks/get (whose answer carries the final result or error
// inline), tasks/update (input for a task) and tasks/cancel.
//
// Same era: the messages pass as any call does. Across eras the proxy
// translates: the creating call's task member becomes the extension (and
// back), a task object's ttl/pollInterval become ttlMs/pollIntervalMs (and
// back), and the task methods are answered from the other era's methods
// with the proxy's own requests (tasks.go and taskops.go).
//
// Every task the proxy saw created remembers the call that created it, so
// the result hooks see a task's final result as a result of that tools/call
// (a taint source's result taints the session before it is forwarded).

// maxTasks bounds the tasks the proxy remembers per session (the oldest go).
const maxTasks = 1024

// taskMode says how a tools/call of a locked tool crosses eras as a task.
func (p *Proxy) taskMode(r *request, name string) taskMode {
	upModern := p.srv.upEra == lockfile.EraModern
	switch {
	case !r.modern && upModern:
		if f, _, _ := jsonline.Fields(r.line, r.env.Params, "task"); f[0].OK() {
			return taskToModern
		}
	case r.modern && !upModern:
		if p.srv.taskTools[name] && declaresTasks(r) {
			return taskToLegacy
		}
	}
	return taskNone
}

// declaresTasks reports whether a 2026-07-28 request's clientCapabilities
// declare the tasks extension.
func declaresTasks(r *request) bool {
	mf, _, _ := jsonline.Fields(r.line, r.meta, "io.modelcontextprotocol/clientCapabilities")
	ef, _, _ := jsonline.Fields(r.line, mf[0], "extensions")
	xf, ok, _ := jsonline.Fields(r.line, ef[0], tasksExt)
	return ok && xf[0].OK() && r.line[xf[0].Start] == '{'
}

// taskRenames maps a task object's member names between the eras.
var (
	toModernNames = map[string]string{"ttl": "ttlMs", "pollInterval": "pollIntervalMs"}
	toLegacyNames = map[string]string{"ttlMs": "ttl", "pollIntervalMs": "pollInterval",
		"resultType": "", "_meta": "", "result": "", "error": "", "inputRequests": ""}
)

// taskMembers returns the members of the task object at sp renamed for the
// other era (a name mapped to "" is dropped), without braces, with status
// in place of the task's own when set. A repeated member is an error.
func taskMembers(b []byte, sp jsonline.Span, names map[string]string, status string) ([]byte, error) {
	if !sp.OK() || b[sp.Start] != '{' {
		return nil, fmt.Errorf("the server's task is not a JSON object")
	}
	var out []byte
	seen := map[string]bool{}
	_, err := jsonscan.Members(b[:sp.End], sp.Start, func(key string, ks, vs, ve int) error {
		if seen[key] {
			return fmt.Errorf("the server's task repeats member %q", key)
		}
		seen[key] = true
		to, renamed := names[key]
		if renamed && to == "" {
			return nil
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		if key == "status" && status != "" {
			out = jsonline.AppendJSON(append(out, `"status":`...), status)
			return nil
		}
		if renamed {
			out = jsonline.AppendJSON(out, to)
			out = append(out, ':')
			out = append(out, b[vs:ve]...)
		} else {
			out = append(out, b[ks:ve]...)
		}
		return nil
	})
	return out, err
}

// taskOf returns the task id of a tools/call result that created a task,
// in either era's form, and the span of the task object.
func taskOf(b []byte, result jsonline.Span) (string, jsonline.Span, bool) {
	rf, _, _ := jsonline.Fields(b, result, "task", "resultType", "taskId")
	if rt, _ := jsonline.StringAt(b, rf[1]); rt == "task" {
		id, ok := jsonline.StringAt(b, rf[2])
		return id, result, ok
	}
	tf, _, _ := jsonline.Fields(b, rf[0], "taskId")
	id, ok := jsonline.StringAt(b, tf[0])
	return id, rf[0], ok
}

// crossCreateResult is the creating call's result in the client's era, or
// nil when it needs no translation.
func crossCreateResult(c *call, b []byte, result jsonline.Span) ([]byte, error) {
	_, task, ok := taskOf(b, result)
	if !ok {
		return nil, nil
	}
	rf, _, _ := jsonline.Fields(b, result, "resultType")
	modernTask, _ := jsonline.StringAt(b, rf[0])
	switch {
	case c.task == taskToModern && modernTask == "task":
		m, err := taskMembers(b, task, toLegacyNames, "")
		if err != nil {
			return nil, err
		}
		return append(append([]byte(`{"task":{`), m...), "}}"...), nil
	case c.task == taskToLegacy && modernTask != "task":
		m, err := taskMembers(b, task, toModernNames, "")
		if err != nil {
			return nil, err
		}
		return append(append([]byte(`{"resultType":"task",`), m...), '}'), nil
	}
	return nil, nil
}

// rememberTask records the call that created task id.
func (p *Proxy) rememberTask(id string, info CallInfo) {
	p.tasks.Remember(id, info)
}

// UnknownTaskResult is the CallInfo.Method of a task's result whose
// creating call the proxy does not know (it remembers maxTasks tasks, and a
// steered model can create more): a hook must treat it as the result of a
// call it cannot name (the taint guard: as a source's, if any tool is one).
const UnknownTaskResult = "tasks/result"

// taskInfo is the CallInfo of the call that created task id (the result
// hooks see a task's final result as that call's result).
func (p *Proxy) taskInfo(id string, r *request) CallInfo {
	if ci, ok := p.tasks.Info(id); ok {
		return ci
	}
	return CallInfo{Method: UnknownTaskResult, ClientModern: r.modern}
}

func modernResultMembers(line []byte, result jsonline.Span, method string) []byte {
	f, ok, err := jsonline.Fields(line, result, "resultType", "ttlMs", "cacheScope")
	if err != nil || !ok {
		return nil
	}
	var b []byte
	if !f[0].OK() {
		b = append(b, `"resultType":"complete",`...)
	}
	if method == "resources/read" {
		if !f[1].OK() {
			b = append(b, `"ttlMs":0,`...)
		}
		if !f[2].OK() {
			b = append(b, `"cacheScope":"private",`...)
		}
	}
	if len(b) > 0 && emptyObject(line, result.Start) {
		b = b[:len(b)-1]
	}
	return b
}

// pollLimits bound how often the proxy polls a 2026-07-28 server's task for
// a legacy client's tasks/result.
const (
	minPoll = 50 * time.Millisecond
	maxPoll = 5 * time.Second
)

func badTask(server string, err error) *jsonline.Error {
	return &jsonline.Error{Code: mcpspec.CodeInternalError, Message: fmt.Sprintf("mcpsum: server %q sent a task the proxy cannot translate: %v", server, err)}
}

func quoteID(id string) string {
	q, _ := termtext.Quote(id)
	return `"` + q + `"`
}

// cancelledErr is what a request the client cancelled ends with (never sent).
func cancelledErr() *jsonline.Error {
	return &jsonline.Error{Code: CodeCallCancelled, Message: "the client cancelled the request"}
}
