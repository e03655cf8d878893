package proxytest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// FakeModernTasks is a FAKE 2026-07-28 server that offers the tasks
// extension (io.modelcontextprotocol/tasks), for the proxy's tests of tasks
// across eras: no real server available here speaks 2026-07-28 tasks
// (go-sdk v1.8.0 and mcp-go v1.2.1 have none; the npm server-everything is
// legacy). Written by hand after @modelcontextprotocol/ext-tasks 0.2.2's v2
// schemas; it is strict where a test needs to see what the proxy sent: a
// tools/call carrying a legacy "task" member, or any request without the
// 2026-07-28 _meta, is refused.
//
// Tools: "research" (a task when the request declares the extension:
// working for two tasks/get, then completed with "report on <topic>";
// without the extension a plain result), "fail" (a task that fails with
// error 4711), "ask" (a task that goes input_required with an elicitation;
// tasks/update's inputResponses complete it with "answered: <responses>"),
// "slow" (a task that works until cancelled), "gets" (without the
// extension: "gets: N", the tasks/get requests answered so far).
func FakeModernTasks(in io.Reader, out io.Writer) int {
	f := &fakeTasks{out: json.NewEncoder(out), tasks: map[string]*fakeTask{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
					Caps    struct {
						Extensions map[string]json.RawMessage `json:"extensions"`
					} `json:"io.modelcontextprotocol/clientCapabilities"`
				} `json:"_meta"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Task      json.RawMessage `json:"task"`
				TaskID    string          `json:"taskId"`
				Responses json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		p := m.Params
		_, ext := p.Meta.Caps.Extensions["io.modelcontextprotocol/tasks"]
		switch {
		case p.Meta.Version != "2026-07-28":
			f.fail(m.ID, -32602, "missing _meta io.modelcontextprotocol/protocolVersion")
		case m.Method == "server/discover":
			f.reply(m.ID, map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
				"ttlMs":        0, "cacheScope": "public", "_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fake-modern-tasks", "version": "1"}}})
		case m.Method == "tools/list":
			schema := map[string]any{"type": "object", "properties": map[string]any{"topic": map[string]any{"type": "string"}}}
			var tools []map[string]any
			for _, n := range []string{"research", "fail", "ask", "slow", "gets"} {
				tools = append(tools, map[string]any{"name": n, "description": "task tool " + n, "inputSchema": schema})
			}
			f.reply(m.ID, map[string]any{"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "public"})
		case m.Method == "tools/call" && p.Task != nil:
			f.fail(m.ID, -32602, "fake: tools/call carries the legacy task member")
		case m.Method == "tools/call":
			var a struct{ Topic string }
			json.Unmarshal(p.Arguments, &a)
			if !ext && p.Name == "gets" { // how many tasks/get the fake has answered
				f.mu.Lock()
				n := f.gets
				f.mu.Unlock()
				f.reply(m.ID, map[string]any{"resultType": "complete", "content": []any{fakeText(fmt.Sprintf("gets: %d", n))}})
				continue
			}
			if !ext {
				f.reply(m.ID, map[string]any{"resultType": "complete", "content": []any{fakeText("sync report on " + a.Topic)}})
				continue
			}
			f.mu.Lock()
			id := fmt.Sprintf("task-%d", len(f.tasks)+1)
			t := &fakeTask{tool: p.Name, topic: a.Topic, status: "working"}
			f.tasks[id] = t
			f.mu.Unlock()
			res := t.wire(id)
			res["resultType"] = "task"
			f.reply(m.ID, res)
		case m.Method == "tasks/update":
			f.mu.Lock()
			t := f.tasks[p.TaskID]
			ok := t != nil && t.status == "input_required" && p.Responses != nil
			if ok {
				t.status, t.answer = "completed", string(p.Responses)
			}
			f.mu.Unlock()
			if !ok {
				f.fail(m.ID, -32602, "fake: the task does not wait for input")
				continue
			}
			f.reply(m.ID, map[string]any{"resultType": "complete"})
		case m.Method == "tasks/get" || m.Method == "tasks/cancel":
			f.mu.Lock()
			t := f.tasks[p.TaskID]
			if m.Method == "tasks/get" {
				f.gets++
			}
			if t != nil && m.Method == "tasks/cancel" {
				t.status = "cancelled"
			} else if t != nil && t.status == "working" {
				t.gets++
				if t.gets > 2 && t.tool != "slow" { // a slow task works until cancelled
					t.status = map[string]string{"research": "completed", "fail": "failed", "ask": "input_required"}[t.tool]
				}
			}
			f.mu.Unlock()
			switch {
			case t == nil:
				f.fail(m.ID, -32602, "unknown task")
			case m.Method == "tasks/cancel":
				f.reply(m.ID, map[string]any{"resultType": "complete"})
			default:
				res := t.wire(p.TaskID)
				res["resultType"] = "complete"
				f.reply(m.ID, res)
			}
		default:
			f.fail(m.ID, -32601, "method not found")
		}
	}
	return 0
}

type fakeTasks struct {
	mu    sync.Mutex
	out   *json.Encoder
	tasks map[string]*fakeTask
	gets  int // tasks/get requests answered
}

type fakeTask struct {
	tool, topic, status string
	answer              string // the inputResponses of tasks/update
	gets                int
}

func (t *fakeTask) wire(id string) map[string]any {
	m := map[string]any{"taskId": id, "status": t.status, "createdAt": "2026-08-01T00:00:00Z",
		"lastUpdatedAt": "2026-08-01T00:00:01Z", "ttlMs": 60000, "pollIntervalMs": 20}
	switch t.status {
	case "completed":
		txt := "report on " + t.topic
		if t.answer != "" {
			txt = "answered: " + t.answer
		}
		m["result"] = map[string]any{"resultType": "complete", "content": []any{fakeText(txt)}}
	case "failed":
		m["error"] = map[string]any{"code": 4711, "message": "research failed"}
	case "input_required":
		m["inputRequests"] = map[string]any{"q": map[string]any{"method": "elicitation/create",
			"params": map[string]any{"message": "which?", "requestedSchema": map[string]any{"type": "object"}}}}
	}
	return m
}

func fakeText(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func (f *fakeTasks) reply(id json.RawMessage, result any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (f *fakeTasks) fail(id json.RawMessage, code int, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}
