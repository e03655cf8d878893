package proxy

import (
	"encoding/json"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/proxy/internal/jsonline"
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

const tasksExt = "io.modelcontextprotocol/tasks"

// maxTasks bounds the tasks the proxy remembers per session (the oldest go).
const maxTasks = 1024

// legacyTasksCap is the tasks capability a legacy client is shown for a
// 2026-07-28 server that offers the extension (what the proxy bridges).
const legacyTasksCap = `{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`

type taskMode uint8

const (
	taskNone     taskMode = iota
	taskToModern          // a legacy client's task-augmented tools/call to a 2026-07-28 server
	taskToLegacy          // a 2026-07-28 client's tools/call (declaring the extension) to a legacy server
)

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

// taskTools returns the locked tools that take a task (2025-11-25
// execution.taskSupport "optional" or "required").
func taskTools(tools []json.RawMessage) map[string]bool {
	m := map[string]bool{}
	for _, t := range tools {
		f, _, _ := jsonline.Fields(t, jsonline.Span{Start: 0, End: len(t)}, "name", "execution")
		xf, _, _ := jsonline.Fields(t, f[1], "taskSupport")
		name, ok := jsonline.StringAt(t, f[0])
		if ts, _ := jsonline.StringAt(t, xf[0]); ok && (ts == "optional" || ts == "required") {
			m[name] = true
		}
	}
	return m
}

// crossCaps adds what the proxy bridges to the capabilities each client era
// is shown: a legacy client in front of a 2026-07-28 server offering the
// tasks extension sees a tasks capability; a 2026-07-28 client in front of a
// legacy server with task-augmented tools/call sees the extension.
func crossCaps(caps map[string]json.RawMessage, upModern bool) (legacy, modern map[string]json.RawMessage) {
	if upModern {
		ef, _, _ := jsonline.Fields(caps["extensions"], jsonline.Span{Start: 0, End: len(caps["extensions"])}, tasksExt)
		if _, has := caps["tasks"]; ef[0].OK() && !has {
			legacy = map[string]json.RawMessage{"tasks": json.RawMessage(legacyTasksCap)}
		}
		return legacy, nil
	}
	t := caps["tasks"]
	rf, _, _ := jsonline.Fields(t, jsonline.Span{Start: 0, End: len(t)}, "requests")
	tf, _, _ := jsonline.Fields(t, rf[0], "tools")
	cf, _, _ := jsonline.Fields(t, tf[0], "call")
	if !cf[0].OK() {
		return nil, nil
	}
	ext := map[string]json.RawMessage{}
	if e := caps["extensions"]; len(e) > 0 && json.Unmarshal(e, &ext) != nil {
		return nil, nil
	}
	ext[tasksExt] = json.RawMessage(`{}`)
	return nil, map[string]json.RawMessage{"extensions": mustJSON(ext)}
}

// withCaps is caps with over's members set.
func withCaps(caps map[string]json.RawMessage, over map[string]json.RawMessage) json.RawMessage {
	out := make(map[string]json.RawMessage, len(caps)+len(over))
	for k, v := range caps {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return mustJSON(out)
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
