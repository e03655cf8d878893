package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// resultRecorder is a Hooks that records what BeforeResult saw, and refuses
// results containing refuse (as the taint guard does when it cannot record).
type resultRecorder struct {
	mu     sync.Mutex
	seen   []string // "method name: body"
	refuse string
}

func (h *resultRecorder) BeforeCall(_ CallInfo, _ []byte, _ Session, decide func(Verdict)) {
	decide(Verdict{})
}

func (h *resultRecorder) BeforeResult(c CallInfo, r ResultInfo) *CallError {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, c.Method+" "+c.Name+": "+string(r.Body))
	if h.refuse != "" && strings.Contains(string(r.Body), h.refuse) {
		return &CallError{Code: -32099, Message: "withheld by the test hook"}
	}
	return nil
}

func (h *resultRecorder) saw(prefix, body string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.seen {
		if strings.HasPrefix(s, prefix) && strings.Contains(s, body) {
			return true
		}
	}
	return false
}

func members(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not an object: %s", raw)
	}
	return m
}

// A legacy client's tasks work in front of a 2026-07-28 server with the
// tasks extension (a fake: no real server here speaks 2026-07-28 tasks):
// the task-augmented call becomes the extension, the task objects and the
// final result come back in the legacy form, tasks/result and tasks/list
// (which 2026-07-28 lacks) are answered by the proxy, a task's final result
// passes the result hooks as the creating tools/call's result, and what
// cannot be relayed (input a client without the capability cannot give)
// gets a prompt error.
func TestTasksLegacyClientModernServer(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	h := &resultRecorder{refuse: "report on secret"}
	s := startProxy(t, e, func(o *Options) { o.Hooks = h })
	_, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize does not offer tasks to the legacy client: %s %+v", m.Result, m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	create := func(tool, topic string) string {
		t.Helper()
		_, m := s.request("tools/call", `{"name":"`+tool+`","arguments":{"topic":"`+topic+`"},"task":{"ttl":60000}}`)
		if m.Error != nil {
			t.Fatalf("tools/call %s with a task: %+v", tool, m.Error)
		}
		r := members(t, m.Result)
		task := members(t, r["task"])
		if _, ok := r["resultType"]; ok || task["ttl"] == nil || task["ttlMs"] != nil || string(task["status"]) != `"working"` {
			t.Fatalf("not a legacy CreateTaskResult: %s", m.Result)
		}
		var id string
		json.Unmarshal(task["taskId"], &id)
		return id
	}

	id := create("research", "go")
	_, m = s.request("tasks/get", `{"taskId":"`+id+`"}`)
	if g := members(t, m.Result); m.Error != nil || g["ttl"] == nil || g["resultType"] != nil || g["pollInterval"] == nil {
		t.Fatalf("tasks/get: %s %+v", m.Result, m.Error)
	}
	_, m = s.request("tasks/result", `{"taskId":"`+id+`"}`)
	if m.Error != nil || !strings.Contains(string(m.Result), "report on go") || strings.Contains(string(m.Result), "resultType") {
		t.Fatalf("tasks/result: %s %+v", m.Result, m.Error)
	}
	if !h.saw("tools/call research: ", "report on go") {
		t.Errorf("the result hooks did not see the task's result as the tools/call's: %q", h.seen)
	}
	_, m = s.request("tasks/list", `{}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"taskId":"`+id+`"`) || !strings.Contains(string(m.Result), `"status":"completed"`) {
		t.Errorf("tasks/list: %s %+v", m.Result, m.Error)
	}

	_, m = s.request("tasks/result", `{"taskId":"`+create("fail", "x")+`"}`)
	if m.Error == nil || m.Error.Code != 4711 || m.Error.Message != "research failed" {
		t.Errorf("a failed task's tasks/result: %s %+v", m.Result, m.Error)
	}

	start := time.Now()
	_, m = s.request("tasks/result", `{"taskId":"`+create("ask", "x")+`"}`)
	if m.Error == nil || !strings.Contains(m.Error.Message, "did not declare the elicitation") || !strings.Contains(m.Error.Message, "tasks/cancel") {
		t.Errorf("a task waiting for input: %s %+v", m.Result, m.Error)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the error for a task waiting for input took %s", took)
	}

	id = create("research", "later")
	_, m = s.request("tasks/cancel", `{"taskId":"`+id+`"}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"status":"cancelled"`) {
		t.Errorf("tasks/cancel: %s %+v", m.Result, m.Error)
	}

	l, m := s.request("tasks/result", `{"taskId":"`+create("research", "secret")+`"}`)
	if m.Error == nil || m.Error.Code != -32099 || strings.Contains(string(l), "report on secret") {
		t.Errorf("a result the hook withheld reached the client: %s", l)
	}

	_, m = s.request("tools/call", `{"name":"research","arguments":{"topic":"now"}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), "sync report on now") {
		t.Errorf("a call without a task: %s %+v", m.Result, m.Error)
	}
	for _, n := range s.notes {
		if strings.Contains(n, "report on secret") {
			t.Errorf("the withheld result reached the client: %s", n)
		}
	}
}

// Same era, 2026-07-28 on both sides: the task methods pass (they were
// refused before), and tasks/get carrying the final result passes the
// result hooks as the creating tools/call's result.
func TestTasksModernBothSides(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	h := &resultRecorder{}
	s := startProxy(t, e, func(o *Options) { o.Hooks = h })
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	_, m := s.request("tools/call", `{"name":"research","arguments":{"topic":"both"},`+meta+`}`)
	r := members(t, m.Result)
	if m.Error != nil || string(r["resultType"]) != `"task"` {
		t.Fatalf("tools/call: %s %+v", m.Result, m.Error)
	}
	var id string
	json.Unmarshal(r["taskId"], &id)
	for i := 0; i < 5; i++ {
		_, m = s.request("tasks/get", `{"taskId":"`+id+`",`+meta+`}`)
		if m.Error != nil {
			t.Fatalf("tasks/get: %+v", m.Error)
		}
		if strings.Contains(string(m.Result), `"status":"completed"`) {
			break
		}
	}
	if !strings.Contains(string(m.Result), "report on both") || !h.saw("tools/call research: ", "report on both") {
		t.Errorf("tasks/get %s; the hooks saw %q", m.Result, h.seen)
	}
	_, m = s.request("tasks/cancel", `{"taskId":"`+id+`",`+meta+`}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"resultType":"complete"`) {
		t.Errorf("tasks/cancel: %s %+v", m.Result, m.Error)
	}
}

// The proxy remembers at most maxTasks tasks: a task whose creating call it
// has forgotten (a steered model creates maxTasks more to push a source's
// task out) still passes the result hooks as a task's result, never as an
// anonymous tasks/get the taint guard would ignore.
func TestTasksForgottenTaskStillATaskResult(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	h := &resultRecorder{}
	s := startProxy(t, e, func(o *Options) { o.Hooks = h })
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	create := func(topic string) string {
		_, m := s.request("tools/call", `{"name":"research","arguments":{"topic":"`+topic+`"},`+meta+`}`)
		var id string
		json.Unmarshal(members(t, m.Result)["taskId"], &id)
		if id == "" {
			t.Fatalf("tools/call: %s %+v", m.Result, m.Error)
		}
		return id
	}
	first := create("first")
	for i := 0; i < maxTasks; i++ {
		create(fmt.Sprint("pad", i))
	}
	for i := 0; i < 5; i++ {
		if _, m := s.request("tasks/get", `{"taskId":"`+first+`",`+meta+`}`); strings.Contains(string(m.Result), `"status":"completed"`) {
			break
		}
	}
	if !h.saw(UnknownTaskResult+" : ", "report on first") {
		t.Errorf("the forgotten task's result passed the hooks as %q", h.seen[len(h.seen)-1])
	}
}

// A 2026-07-28 task waiting for input (input_required with inputRequests)
// asks a legacy client with its era's request while the client waits in
// tasks/result; the answer goes back with tasks/update and the task ends.
func TestTasksLegacyClientAnswersTaskInput(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	s := startProxy(t, e)
	_, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"test","version":"1"}}`)
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, m = s.request("tools/call", `{"name":"ask","arguments":{},"task":{}}`)
	var r struct{ Task struct{ TaskID string } }
	if json.Unmarshal(m.Result, &r) != nil || r.Task.TaskID == "" {
		t.Fatalf("tools/call: %s %+v", m.Result, m.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":"res","method":"tasks/result","params":{"taskId":"` + r.Task.TaskID + `"}}`)
	var ask msg
	for ask.Method == "" {
		json.Unmarshal(s.recv(), &ask)
	}
	if ask.Method != "elicitation/create" || !strings.Contains(string(ask.Params), `"message":"[from server \"t\", not mcpsum] which?"`) {
		t.Fatalf("the client was asked %s %s", ask.Method, ask.Params)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"pick":"b"}}}`)
	_, m = s.waitFor(`"res"`)
	if m.Error != nil || !strings.Contains(string(m.Result), `answered: {\"q\":{\"action\":\"accept\",\"content\":{\"pick\":\"b\"}}}`) {
		t.Errorf("tasks/result after the answer: %s %+v", m.Result, m.Error)
	}
}

// A legacy client's tasks/result that the proxy serves by polling a
// 2026-07-28 server's tasks/get stops polling when the client cancels it
// (notifications/cancelled) and gets no answer, as cancellation requires.
// The fake's "slow" task works until cancelled; its "gets" tool says how
// many tasks/get the fake has answered.
func TestTasksLegacyResultCancelStopsPolling(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	s := startProxy(t, e)
	s.initialize()
	gets := func() int {
		t.Helper()
		_, m := s.request("tools/call", `{"name":"gets","arguments":{}}`)
		var r struct{ Content []struct{ Text string } }
		var n int
		if json.Unmarshal(m.Result, &r) != nil || len(r.Content) != 1 {
			t.Fatalf("gets: %s %+v", m.Result, m.Error)
		}
		if _, err := fmt.Sscanf(r.Content[0].Text, "gets: %d", &n); err != nil {
			t.Fatalf("gets: %q", r.Content[0].Text)
		}
		return n
	}
	_, m := s.request("tools/call", `{"name":"slow","arguments":{},"task":{}}`)
	var r struct{ Task struct{ TaskID string } }
	if json.Unmarshal(m.Result, &r) != nil || r.Task.TaskID == "" {
		t.Fatalf("tools/call: %s %+v", m.Result, m.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":"res","method":"tasks/result","params":{"taskId":"` + r.Task.TaskID + `"}}`)
	for deadline := time.Now().Add(10 * time.Second); gets() < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the proxy does not poll the task")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"res","reason":"test"}}`)
	time.Sleep(100 * time.Millisecond) // a poll in flight when the cancellation came
	before := gets()
	time.Sleep(10 * minPoll)
	if after := gets(); after != before {
		t.Errorf("the proxy still polls after the cancellation: %d tasks/get, then %d", before, after)
	}
	for _, n := range s.notes {
		if strings.Contains(n, `"id":"res"`) {
			t.Errorf("the cancelled tasks/result was answered: %s", n)
		}
	}
}

// A legacy server's capabilities extensions are read with exact keys: a
// duplicate key is refused (no extension shown), not resolved last-wins.
func TestCrossCapsExtensionsExactKeys(t *testing.T) {
	caps := func(ext string) map[string]json.RawMessage {
		return map[string]json.RawMessage{
			"tasks":      json.RawMessage(`{"requests":{"tools":{"call":{}}}}`),
			"extensions": json.RawMessage(ext),
		}
	}
	_, modern := crossCaps(caps(`{"a":{"x":1}}`), false)
	if got := string(modern["extensions"]); !strings.Contains(got, `"a":{"x":1}`) || !strings.Contains(got, tasksExt) {
		t.Errorf("extensions shown: %s", got)
	}
	if _, modern := crossCaps(caps(`{"a":1,"a":2}`), false); modern != nil {
		t.Errorf("a duplicate extension key passed: %s", modern["extensions"])
	}
}
