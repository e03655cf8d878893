package e2e

import (
	"encoding/json"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// next returns the proxy's next message of any kind (nil after wait).
func (p *rawProxy) next(wait time.Duration) map[string]json.RawMessage {
	p.t.Helper()
	ch := make(chan []byte, 1)
	go func() {
		l, _ := p.out.Next()
		ch <- l
	}()
	select {
	case l := <-ch:
		if l == nil {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			p.t.Fatalf("non-JSON line %q", termtext.TruncateQuote(string(l), 200))
		}
		return m
	case <-time.After(wait):
		p.t.Fatalf("nothing from the proxy within %v\nstderr:\n%s", wait, p.stderr)
	}
	return nil
}

// lockGoEverything locks the go-sdk everything server (2026-07-28) as
// "goe" with resources:* a source and greet and prompts:* sinks.
func lockGoEverything(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "goe", "--", bin.goEvery)
	setPolicy(t, dir, "goe", map[string]any{"taint": map[string]any{"sources": []string{"resources:*"}, "sinks": []string{"greet", "prompts:*"}}})
	return dir
}

const legacyElicitInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`

// taintByResource reads the locked resource (a resources:* source).
func taintByResource(p *rawProxy, id string) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/read","params":{"uri":"embedded:info"}}`)
	if m := p.await(id); m["result"] == nil {
		p.t.Fatalf("resources/read: %s", m["error"])
	}
}

// askedFor waits for the proxy's elicitation/create and returns its id.
func askedFor(p *rawProxy) string {
	p.t.Helper()
	for {
		m := p.next(30 * time.Second)
		if m == nil {
			p.t.Fatal("the proxy closed before asking")
		}
		var method string
		json.Unmarshal(m["method"], &method)
		if method == "elicitation/create" {
			if !strings.Contains(string(m["params"]), `\"embedded:info\"`) && !strings.Contains(string(m["params"]), `resources:*`) {
				p.t.Fatalf("the question does not name the source: %s", m["params"])
			}
			return string(m["id"])
		}
	}
}

// A raw legacy client: while the approval question is open, other traffic
// flows; cancelling the call withdraws the question and nothing is
// answered or forwarded; a client error refuses; no answer in time refuses
// and withdraws the question; a client that goes away refuses.
func TestTaintRawLegacyClient(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	state, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=raw-legacy")
	p := startRaw(t, taintProxy(dir, "goe", env))
	p.send(legacyElicitInit)
	p.await("0")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	taintByResource(p, "1")

	// Cancel while asked.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a"}}}`)
	ask := askedFor(p)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.await("3")
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if m := p.await("4"); m["result"] == nil {
		t.Fatal("tools/list blocked or failed while a question was open")
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	withdrawn := false
	p.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	for {
		m := p.next(30 * time.Second)
		if string(m["id"]) == "2" {
			t.Fatalf("a cancelled call was answered: %v", m)
		}
		if string(m["method"]) == `"notifications/cancelled"` && strings.Contains(string(m["params"]), `"requestId":`+ask) {
			withdrawn = true
		}
		if string(m["id"]) == "5" {
			break
		}
	}
	if !withdrawn {
		t.Error("the question was not withdrawn when the call was cancelled")
	}
	// A late answer to the withdrawn question changes nothing.
	p.send(`{"jsonrpc":"2.0","id":` + ask + `,"result":{"action":"accept","content":{"allow":true}}}`)

	// The client answers the question with an error.
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"greet","arguments":{"name":"b"}}}`)
	ask = askedFor(p)
	p.send(`{"jsonrpc":"2.0","id":` + ask + `,"error":{"code":-32603,"message":"no UI"}}`)
	if m := p.await("6"); !strings.Contains(string(m["result"]), "answered the approval prompt with an error") {
		t.Fatalf("error answer: %s %s", m["result"], m["error"])
	}
	// Disconnect while asked.
	p.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{"name":"c"}}}`)
	askedFor(p)
	p.pipe.Close()
	p.wait()
	noLeftovers(t, dir)

	// No answer in time.
	q := startRaw(t, taintProxy(dir, "goe", env, "--approval-timeout-secs", "1"))
	q.send(legacyElicitInit)
	q.await("0")
	q.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	q.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"greet","arguments":{"name":"d"}}}`)
	ask = askedFor(q)
	withdrawn = false
	for {
		m := q.next(30 * time.Second)
		if string(m["method"]) == `"notifications/cancelled"` && strings.Contains(string(m["params"]), `"requestId":`+ask) {
			withdrawn = true
		}
		if string(m["id"]) == "8" {
			if !strings.Contains(string(m["result"]), "nobody answered the approval prompt in time") {
				t.Fatalf("timeout: %s %s", m["result"], m["error"])
			}
			break
		}
	}
	if !withdrawn {
		t.Error("the timed-out question was not withdrawn")
	}
	q.wait()

	got := map[string]bool{}
	for _, l := range auditLines(t, state) {
		if l["role"] == "sink" {
			got[fmt.Sprintf("%v/%v", l["decision"], l["answer"])] = true
		}
	}
	for _, want := range []string{"refused/cancelled", "refused/error", "refused/disconnected", "refused/timeout"} {
		if !got[want] {
			t.Errorf("audit lacks %s: %v", want, got)
		}
	}
	if got["allowed/accept"] {
		t.Error("a withdrawn question's late accept allowed a call")
	}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// A raw 2026-07-28 client: input_required with a signed requestState; a
// replay with other arguments, a forged and an altered state are refused;
// the approved retry reaches the server; the state cannot be used twice.
func TestTaintRawModernClient(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	_, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=raw-modern")
	p := startRaw(t, taintProxy(dir, "goe", env))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"embedded:info",` + modernMeta + `}}`)
	if m := p.await("1"); m["result"] == nil {
		t.Fatalf("resources/read: %s", m["error"])
	}
	call := func(id, who, extra string) map[string]json.RawMessage {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"greet","arguments":{"name":"` + who + `"}` + extra + `,` + modernMeta + `}}`)
		return p.await(id)
	}
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	m := call("2", "alice", "")
	if err := json.Unmarshal(m["result"], &ir); err != nil || ir.ResultType != "input_required" || ir.InputRequests["mcpsum/approve"] == nil {
		t.Fatalf("not input_required: %s %s", m["result"], m["error"])
	}
	st := ir.RequestState
	accept := `,"inputResponses":{"mcpsum/approve":{"action":"accept","content":{"allow":true}}},"requestState":`
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	if m := call("3", "mallory", accept+q(st)); !strings.Contains(string(m["result"]), "issued for a different call") {
		t.Fatalf("other arguments: %s", m["result"])
	}
	i := strings.LastIndexByte(st, '.')
	if m := call("4", "alice", accept+q(st[:i+1]+"AAAA"+st[i+5:])); !strings.Contains(string(m["result"]), "not issued by this mcpsum") {
		t.Fatalf("forged signature: %s", m["result"])
	}
	if m := call("5", "alice", accept+q("mcpsum-approval.v1.e30.AAAA")); !strings.Contains(string(m["result"]), "not issued by this mcpsum") {
		t.Fatalf("made-up state: %s", m["result"])
	}
	if m := call("6", "alice", accept+q(st)); !strings.Contains(string(m["result"]), "Hi alice") {
		t.Fatalf("approved retry: %s %s", m["result"], m["error"])
	}
	if m := call("7", "alice", accept+q(st)); !strings.Contains(string(m["result"]), "already used") {
		t.Fatalf("second use: %s", m["result"])
	}
	// prompts:* is a sink too; a modern client without elicitation is refused with an error.
	p.send(`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := p.await("8"); !strings.Contains(string(m["error"]), "-31006") || !strings.Contains(string(m["error"]), "cannot show") {
		t.Fatalf("prompts/get: %s %s", m["result"], m["error"])
	}
	p.wait()
	noLeftovers(t, dir)
}

// copyEntry duplicates a locked entry under another name (the name is not
// part of the surface digest), with its policy.
func copyEntry(t *testing.T, dir, from, to string) {
	t.Helper()
	path := dir + "/mcp.lock"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	json.Unmarshal(data, &f)
	servers := f["servers"].(map[string]any)
	servers[to] = servers[from]
	out, _ := json.MarshalIndent(f, "", "  ")
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Four proxies of one session (this process) taint it at the same moment
// from four servers, then each checks a sink: no update is lost and every
// proxy sees the taint.
func TestTaintConcurrentProxies(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	for i := 1; i < 4; i++ {
		copyEntry(t, dir, "goe", fmt.Sprintf("goe%d", i))
	}
	state, env := taintState(t)
	names := []string{"goe", "goe1", "goe2", "goe3"}
	ps := make([]*rawProxy, len(names))
	for i, n := range names {
		ps[i] = startRaw(t, taintProxy(dir, n, env))
		ps[i].initialize()
	}
	for _, p := range ps {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"embedded:info"}}`)
	}
	for _, p := range ps {
		p.await("1")
	}
	for i, p := range ps {
		p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"x"}}}`)
		if r := string(p.await("2")["result"]); !strings.Contains(r, "mcpsum refused this call") {
			t.Errorf("proxy %s: %s", names[i], r)
		}
	}
	for _, p := range ps {
		p.wait()
	}
	files, _ := filepath.Glob(filepath.Join(state, "mcpsum", "taint", "*.json"))
	if len(files) != 1 {
		t.Fatalf("state files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	for _, n := range names {
		if !strings.Contains(string(data), `"server": "`+n+`"`) {
			t.Errorf("lost the taint of %s:\n%s", n, data)
		}
	}
}
