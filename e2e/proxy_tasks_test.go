package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tasksMeta is a 2026-07-28 request's _meta declaring the tasks extension.
const tasksMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

func object(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %s", raw)
	}
	return m
}

// modernTask creates a task of the real server-everything's
// simulate-research-query (taskSupport "required") from a 2026-07-28 client
// and returns its id.
func modernTask(t *testing.T, p *rawProxy, id, topic string) string {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"simulate-research-query","arguments":{"topic":"` + topic + `"},` + tasksMeta + `}}`)
	m := p.await(id)
	r := object(t, m["result"])
	if string(r["resultType"]) != `"task"` || r["ttlMs"] == nil || r["pollIntervalMs"] == nil || r["task"] != nil || r["ttl"] != nil {
		t.Fatalf("not a 2026-07-28 CreateTaskResult: %s %s", m["result"], m["error"])
	}
	var tid string
	json.Unmarshal(r["taskId"], &tid)
	return tid
}

// pollModern polls tasks/get from a 2026-07-28 client until the task is not
// working and returns the last answer.
func pollModern(t *testing.T, p *rawProxy, tid string, n *int) map[string]json.RawMessage {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		*n++
		id := fmt.Sprintf("9%03d", *n)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tasks/get","params":{"taskId":"` + tid + `",` + tasksMeta + `}}`)
		m := p.await(id)
		if m["error"] != nil {
			t.Fatalf("tasks/get: %s", m["error"])
		}
		r := object(t, m["result"])
		if string(r["status"]) != `"working"` || time.Now().After(deadline) {
			return r
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// A 2026-07-28 client uses the real legacy server-everything's tasks through
// the proxy: discover offers the tasks extension, the call declaring it
// becomes a task-augmented legacy call, tasks/get carries the final result
// inline (fetched with the legacy tasks/result), tasks/cancel works, and a
// tasks/update for no open input request gets a prompt error. The legacy
// notifications/tasks/status never reach this client.
func TestProxyTasksModernClientLegacyServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "e", "--", "node", npmServer(t, "server-everything"))
	p := startRaw(t, proxyCmd(dir, "e"))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + tasksMeta + `}}`)
	caps := object(t, object(t, p.await("1")["result"])["capabilities"])
	if caps["tasks"] != nil || !strings.Contains(string(caps["extensions"]), `"io.modelcontextprotocol/tasks":{}`) {
		t.Fatalf("discover does not offer the tasks extension: %s", caps)
	}

	n := 0
	tid := modernTask(t, p, "2", "tides")
	r := pollModern(t, p, tid, &n)
	res := object(t, r["result"])
	if string(r["status"]) != `"completed"` || string(r["resultType"]) != `"complete"` || r["ttlMs"] == nil || r["ttl"] != nil ||
		string(res["resultType"]) != `"complete"` || !strings.Contains(string(res["content"]), "Research Report: tides") {
		t.Fatalf("the completed task: %s", mustMarshal(r))
	}

	tid = modernTask(t, p, "3", "moons")
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":"` + tid + `",` + tasksMeta + `}}`)
	if m := p.await("4"); string(m["result"]) != `{"resultType":"complete"}` {
		t.Fatalf("tasks/cancel: %s %s", m["result"], m["error"])
	}
	if r := pollModern(t, p, tid, &n); string(r["status"]) != `"cancelled"` {
		t.Errorf("after tasks/cancel: %s", mustMarshal(r))
	}

	start := time.Now()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tasks/update","params":{"taskId":"` + tid + `","inputResponses":{},` + tasksMeta + `}}`)
	if m := p.await("5"); !strings.Contains(string(m["error"]), "no open input request") || time.Since(start) > 5*time.Second {
		t.Errorf("tasks/update: %s %s", m["result"], m["error"])
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tasks/result","params":{"taskId":"` + tid + `",` + tasksMeta + `}}`)
	if m := p.await("6"); !strings.Contains(string(m["error"]), "-32601") {
		t.Errorf("tasks/result is not a 2026-07-28 method: %s %s", m["result"], m["error"])
	}
	// Without the extension the server's own answer for a required task.
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"simulate-research-query","arguments":{"topic":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := p.await("7"); !strings.Contains(string(m["result"]), "requires task augmentation") {
		t.Errorf("a call not declaring the extension: %s %s", m["result"], m["error"])
	}
	for _, m := range p.skipped {
		if strings.Contains(string(m["method"]), "tasks") {
			t.Errorf("a 2026-07-28 client got %s", m["method"])
		}
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d\n%s", code, p.stderr)
	}
	noLeftovers(t, dir)
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A task's final result from a taint source taints the session before it
// is forwarded, in both client eras, even when the taint recorded at the
// task's creation was reset meanwhile: the legacy client's tasks/result
// (same era, forwarded) and the 2026-07-28 client's tasks/get (bridged)
// pass the result hooks as results of the creating tools/call.
func TestProxyTaskResultTaints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "web", "--", "node", npmServer(t, "server-everything"))
	setPolicy(t, dir, "web", map[string]any{"taint": map[string]any{"sources": []string{"simulate-research-query"}, "sinks": []string{}}})
	state, env := taintState(t)
	taintDir := filepath.Join(state, "mcpsum", "taint")
	tainted := func() bool {
		files, _ := filepath.Glob(filepath.Join(taintDir, "*.json"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "simulate-research-query") {
				return true
			}
		}
		return false
	}

	p := startRaw(t, taintProxy(dir, "web", env))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"simulate-research-query","arguments":{"topic":"legacy"},"task":{}}}`)
	var tid string
	json.Unmarshal(object(t, object(t, p.await("1")["result"])["task"])["taskId"], &tid)
	if !tainted() {
		t.Fatal("creating a source's task did not taint the session")
	}
	os.RemoveAll(taintDir) // as `mcpsum taint reset` does
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"` + tid + `"}}`)
	if m := p.await("2"); !strings.Contains(string(m["result"]), "Research Report: legacy") {
		t.Fatalf("tasks/result: %s %s", m["result"], m["error"])
	}
	if !tainted() {
		t.Error("a legacy client's tasks/result of a source did not taint the session")
	}
	p.wait()

	os.RemoveAll(taintDir)
	q := startRaw(t, taintProxy(dir, "web", env))
	n := 0
	tid = modernTask(t, q, "1", "modern")
	os.RemoveAll(taintDir)
	time.Sleep(5500 * time.Millisecond) // the task runs four 1 s stages
	if tainted() {
		t.Fatal("tainted before the result was read")
	}
	if r := pollModern(t, q, tid, &n); !strings.Contains(string(r["result"]), "Research Report: modern") {
		t.Fatalf("tasks/get: %s", mustMarshal(r))
	}
	if !tainted() {
		t.Error("a 2026-07-28 client's tasks/get carrying a source's result did not taint the session")
	}
	q.wait()
}

// A legacy task that needs input (server-everything's
// simulate-research-query with ambiguous: the server asks elicitation/create
// inside tasks/result) reaches a 2026-07-28 client as the extension's
// input_required task with inputRequests; its tasks/update answers the
// server's request and the task completes with the client's answer.
func TestProxyTaskInputModernClientLegacyServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "e", "--", "node", npmServer(t, "server-everything"))
	p := startRaw(t, proxyCmd(dir, "e"))
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"simulate-research-query","arguments":{"topic":"python","ambiguous":true},` + meta + `}}`)
	var tid string
	json.Unmarshal(object(t, p.await("1")["result"])["taskId"], &tid)
	if tid == "" {
		t.Fatal("no task")
	}
	var r map[string]json.RawMessage
	for i := 0; ; i++ {
		id := fmt.Sprintf("%d", 100+i)
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tasks/get","params":{"taskId":"` + tid + `",` + meta + `}}`)
		m := p.await(id)
		r = object(t, m["result"])
		if string(r["status"]) == `"input_required"` || i > 60 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(r["inputRequests"], &reqs) != nil || len(reqs) != 1 {
		t.Fatalf("an input_required task without inputRequests: %s", mustMarshal(r))
	}
	var key string
	for k, v := range reqs {
		key = k
		if v.Method != "elicitation/create" || !strings.Contains(string(v.Params), "multiple interpretations") {
			t.Fatalf("input request %s %s", v.Method, v.Params)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tasks/update","params":{"taskId":"` + tid + `","inputResponses":{"` + key + `":{"action":"accept","content":{"interpretation":"snake"}}},` + meta + `}}`)
	if m := p.await("2"); string(m["result"]) != `{"resultType":"complete"}` {
		t.Fatalf("tasks/update: %s %s", m["result"], m["error"])
	}
	n := 0
	r = pollModern(t, p, tid, &n)
	if string(r["status"]) != `"completed"` || !strings.Contains(string(r["result"]), "Research Report: python (snake)") {
		t.Errorf("after the answer: %s", mustMarshal(r))
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit %d\n%s", code, p.stderr)
	}
	noLeftovers(t, dir)
}
