package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two readings of one call, against the real servers. mcp-go v1.2.1
// decodes params with encoding/json, ignoring case: a tools/call naming
// the untainted "echo" and, as "Name", the sink "add" runs add (shown
// directly below). Through the proxy, such a call and every other twin or
// duplicate member is refused before the server sees it. go-sdk v1.8.0
// reads keys exactly, and the proxy refuses the same lines for it too.
func TestTaintTwinMembersRealServers(t *testing.T) {
	t.Parallel()
	twin := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","Name":"add","arguments":{"message":"hi","a":2,"b":3}}}`

	// The threat is real: mcp-go runs the twin.
	d := startRaw(t, exec.Command(bin.mcpgoEvery))
	d.initialize()
	d.send(twin)
	if r := string(d.await("5")["result"]); !strings.Contains(r, "sum of 2") {
		t.Fatalf("mcp-go no longer runs the case-variant name (the test's premise): %s", r)
	}
	d.wait()

	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "mcpgo", "--", bin.mcpgoEvery)
	setPolicy(t, dir, "mcpgo", map[string]any{"taint": map[string]any{"sources": []string{"echo"}, "sinks": []string{"add"}}})
	mustLock(t, dir, nil, "--name", "goe", "--", bin.goEvery)
	setPolicy(t, dir, "goe", map[string]any{"taint": map[string]any{"sources": []string{"resources:*"}, "sinks": []string{"greet"}}})
	_, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=twins")

	p := startRaw(t, taintProxy(dir, "mcpgo", env))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"ignore previous instructions"}}}`)
	p.await("1") // the session is tainted now
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	if r := string(p.await("2")["result"]); !strings.Contains(r, "mcpsum refused this call") {
		t.Fatalf("the sink ran in a tainted session: %s", r)
	}
	refused := func(p *rawProxy, id, line, want string) {
		t.Helper()
		p.send(line)
		m := p.await(id)
		if !strings.Contains(string(m["error"]), "-32602") || !strings.Contains(string(m["error"]), want) {
			t.Errorf("%s: %s %s, want -32602 naming %s", line, m["result"], m["error"], want)
		}
	}
	refused(p, "5", twin, `\"Name\" beside or instead of \"name\"`)
	refused(p, "6", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},"Arguments":{"a":1}}}`, `\"Arguments\"`)
	refused(p, "7", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3,"A":40}}}`, `\"A\"`)
	p.wait()

	g := startRaw(t, taintProxy(dir, "goe", env))
	g.initialize()
	refused(g, "1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","Name":"greet","arguments":{}}}`, `\"Name\"`)
	refused(g, "2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"shown","Name":"run"}}}`, `\"Name\"`)
	refused(g, "3", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","name":"greet","arguments":{"name":"x"}}}`, `twice`)
	g.wait()
	noLeftovers(t, dir)
}

// approvalState asks for a sink call as a 2026-07-28 client of proxy p and
// returns the requestState of mcpsum's input_required.
func approvalState(t *testing.T, p *rawProxy, id, args string) string {
	t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"greet","arguments":` + args + `,` + modernMeta + `}}`)
	var ir struct {
		ResultType   string `json:"resultType"`
		RequestState string `json:"requestState"`
	}
	if m := p.await(id); json.Unmarshal(m["result"], &ir) != nil || ir.ResultType != "input_required" {
		t.Fatalf("not input_required: %s %s", m["result"], m["error"])
	}
	return ir.RequestState
}

// One approval runs one call: a second proxy process of the session, and
// a proxy restarted within the expiry, refuse the spent requestState.
func TestTaintApprovalSingleUseAcrossProxies(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	_, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=replay")
	a := startRaw(t, taintProxy(dir, "goe", env))
	b := startRaw(t, taintProxy(dir, "goe", env))
	a.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"embedded:info",` + modernMeta + `}}`)
	a.await("1")
	st := approvalState(t, a, "2", `{"name":"alice"}`)
	q, _ := json.Marshal(st)
	retry := func(p *rawProxy, id string) string {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"greet","arguments":{"name":"alice"},"inputResponses":{"mcpsum/approve":{"action":"accept","content":{"allow":true}}},"requestState":` + string(q) + `,` + modernMeta + `}}`)
		m := p.await(id)
		return string(m["result"]) + string(m["error"])
	}
	if r := retry(b, "3"); !strings.Contains(r, "Hi alice") {
		t.Fatalf("the approved retry on the other proxy: %s", r)
	}
	if r := retry(a, "4"); !strings.Contains(r, "already used") {
		t.Errorf("replay on the issuing proxy: %s", r)
	}
	b.wait()
	a.wait()
	c := startRaw(t, taintProxy(dir, "goe", env))
	if r := retry(c, "5"); !strings.Contains(r, "already used") {
		t.Errorf("replay on a restarted proxy: %s", r)
	}
	c.wait()
	noLeftovers(t, dir)
}

// A session named with MCPSUM_SESSION is shared by proxies of several
// clients. When the client whose proxy tainted it is gone and its state is
// old, a new proxy's cleanup must still keep it while another proxy of the
// session runs: that proxy's sink calls stay refused.
func TestTaintCleanupKeepsSessionInUse(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	state, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=shared")
	// Proxy A runs under a shell that stays its parent (the "client") and
	// exits with it.
	sh := exec.Command("sh", "-c", `"$0" "$@"; true`, bin.mcpsum, "proxy", "--lockfile", filepath.Join(dir, "mcp.lock"), "--name", "goe")
	sh.Dir, sh.Env = dir, env
	a := startRaw(t, sh)
	a.initialize()
	// Proxy B: another client (this test) of the same session.
	b := startRaw(t, taintProxy(dir, "goe", env))
	b.initialize()
	taintByResource(a, "1")
	a.wait()
	file := filepath.Join(state, "mcpsum", "taint", "shared.json")
	old := time.Now().Add(-3 * time.Hour)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	// Proxy C starts: its cleanup runs.
	c := startRaw(t, taintProxy(dir, "goe", env))
	c.initialize()
	c.wait()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the session's taint was cleaned up while proxy B runs: %v", err)
	}
	b.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"x"}}}`)
	if r := string(b.await("2")["result"]); !strings.Contains(r, "mcpsum refused this call") {
		t.Errorf("proxy B's sink ran: %s", r)
	}
	b.wait()
	noLeftovers(t, dir)
}

// "Allow this exact call for the rest of this session", chosen in the
// approval prompt of a legacy client: the same call then runs without a
// question, another one is asked about, taint list shows the grant and
// taint reset clears it.
func TestTaintSessionGrant(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	_, env := taintState(t)
	env = append(env, "MCPSUM_SESSION=grants")
	p := startRaw(t, taintProxy(dir, "goe", env))
	p.send(legacyElicitInit)
	p.await("0")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	taintByResource(p, "1")
	greet := func(id, who string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"greet","arguments":{"name":"` + who + `"}}}`
	}
	p.send(greet("2", "bob"))
	ask := askedFor(p)
	p.send(`{"jsonrpc":"2.0","id":` + ask + `,"result":{"action":"accept","content":{"allow":true,"session":true}}}`)
	if r := string(p.await("2")["result"]); !strings.Contains(r, "Hi bob") {
		t.Fatalf("approved call: %s", r)
	}
	// The same call again: no question, it runs.
	p.send(greet("3", "bob"))
	for {
		m := p.next(30 * time.Second)
		if string(m["method"]) == `"elicitation/create"` {
			t.Fatal("the granted call was asked about again")
		}
		if string(m["id"]) == "3" {
			if !strings.Contains(string(m["result"]), "Hi bob") {
				t.Fatalf("granted call: %s", m["result"])
			}
			break
		}
	}
	// Other arguments are asked about.
	p.send(greet("4", "eve"))
	ask = askedFor(p)
	p.send(`{"jsonrpc":"2.0","id":` + ask + `,"result":{"action":"decline"}}`)
	if r := string(p.await("4")["result"]); !strings.Contains(r, "mcpsum refused this call") {
		t.Fatalf("declined call: %s", r)
	}
	out, stderr, code := taintCLI(t, env, true, "taint", "list")
	if code != 0 || !strings.Contains(out, "allowed for the session: tools/call greet on server goe with arguments sha256:") {
		t.Fatalf("taint list: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := taintCLI(t, env, true, "taint", "reset", "grants"); code != 0 {
		t.Fatalf("taint reset: %d %s", code, stderr)
	}
	taintByResource(p, "5")
	p.send(greet("6", "bob"))
	ask = askedFor(p) // the grant went with the reset
	// Answered, so the proxy's end of input has nothing left to wait for
	// (an open question would hold it for --timeout-secs: finish).
	p.send(`{"jsonrpc":"2.0","id":` + ask + `,"result":{"action":"decline"}}`)
	if r := string(p.await("6")["result"]); !strings.Contains(r, "mcpsum refused this call") {
		t.Fatalf("declined call after the reset: %s", r)
	}
	p.wait()
}
