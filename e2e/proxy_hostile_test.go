package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// hostileScript writes dir/srv.sh running the FAKE hostile server in mode.
func hostileScript(t *testing.T, dir, mode string) {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\nexec %s -mode %s\n", bin.hostile, mode)
	if err := os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// lineProxy is `mcpsum proxy` driven line by line.
type lineProxy struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan string
	stderr *testbin.SyncBuffer
	exited chan struct{} // closed when the proxy has exited
}

func startLineProxy(t *testing.T, dir, name string, extra ...string) *lineProxy {
	t.Helper()
	cmd := proxyCmd(dir, name, extra...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	rp := &lineProxy{t: t, in: in, lines: make(chan string, 1<<16), stderr: &testbin.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = rp.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 128<<20)
		for sc.Scan() {
			rp.lines <- sc.Text()
		}
		close(rp.lines)
		cmd.Wait()
		close(rp.exited)
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-rp.exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("proxy did not exit after its stdin closed")
		}
	})
	return rp
}

func (rp *lineProxy) send(line string) {
	rp.t.Helper()
	if _, err := io.WriteString(rp.in, line+"\n"); err != nil {
		rp.t.Fatalf("write to proxy: %v (stderr: %s)", err, rp.stderr)
	}
}

// until returns the lines read up to and including the response to id
// (fails after 30 s or when the proxy's stdout ends first).
func (rp *lineProxy) until(id string) (resp map[string]json.RawMessage, before []string) {
	rp.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-rp.lines:
			if !ok {
				rp.t.Fatalf("proxy stdout ended before the answer to %s; lines %q\nstderr: %s", id, before, rp.stderr)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				rp.t.Fatalf("proxy wrote a line that is not JSON: %.200q", l)
			}
			if string(m["id"]) == id && m["method"] == nil {
				return m, before
			}
			before = append(before, l)
		case <-timeout:
			rp.t.Fatalf("no answer to %s within 30 s; lines %q\nstderr: %s", id, before, rp.stderr)
		}
	}
}

func (rp *lineProxy) initialize() {
	rp.t.Helper()
	rp.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"elicitation":{},"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	rp.until(`"init"`)
	rp.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// Case-twin members: the hostile servers (FAKES) put a poisoned value under
// the exact key and a clean twin differing only in case after it, which
// encoding/json (last case-insensitive match wins) reads: verify once passed
// them, then read the exact key. A client that ignores case still reads the
// twin, so verify now refuses such a message outright, as it refuses a
// repeated key (exit 3, naming the member): the exact-key rule the proxy
// applies to client requests, one function for both.
func TestVerifyReadsExactKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode, want string
		code       int
	}{
		{"twin-result", "member \"Result\" is a case variant of \"result\"", 3},
		{"twin-tools", "\"Tools\" beside or instead of \"tools\"", 3},
		{"twin-instructions", "member \"Instructions\" is a case variant of \"instructions\"", 3},
		{"dup-result", "duplicate member \"result\"", 3},
	} {
		t.Run(c.mode, func(t *testing.T) {
			dir := t.TempDir()
			hostileScript(t, dir, "legacy")
			mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
			// The hostile server names itself after its mode; serverInfo
			// drift is informational and does not matter here.
			hostileScript(t, dir, c.mode)
			out, errOut, code := mcpsum(t, dir, nil, "verify")
			if code != c.code || !strings.Contains(out+errOut, c.want) {
				t.Errorf("verify: exit %d, want %d with %q\n%s%s", code, c.code, c.want, out, errOut)
			}
		})
	}
}

// A rug-pulled server (FAKE, -mode elicit) sends an "enter your AWS key"
// elicitation, a roots/list request, a log message and stray progress while
// the proxy checks its surface, which has drifted: the client sees none of
// them, only the quarantine.
func TestProxyHoldsServerTrafficUntilChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "legacy")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	hostileScript(t, dir, "elicit")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, before := rp.until("1")
	if !strings.Contains(string(resp["error"]), "-32002") {
		t.Errorf("want the quarantine error, got %s", resp["error"])
	}
	rp.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	_, more := rp.until("2")
	for _, l := range append(before, more...) {
		for _, bad := range []string{"elicitation/create", "AWS", "roots/list", "exfiltrate", "notifications/progress"} {
			if strings.Contains(l, bad) {
				t.Errorf("the client saw the server's %s: %s", bad, l)
			}
		}
	}
}

// A server floods the client with 100000 roots/list requests the client
// never answers: the proxy forwards at most 64 and answers the rest itself,
// and keeps serving the client.
func TestProxyBoundsServerRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "legacy")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	hostileScript(t, dir, "roots-flood")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	seen := 0
	deadline := time.Now().Add(60 * time.Second)
	for id := 1; ; id++ {
		rp.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, id))
		resp, before := rp.until(fmt.Sprint(id))
		for _, l := range before {
			if strings.Contains(l, `"roots/list"`) {
				seen++
			}
		}
		var refused int
		fmt.Sscanf(string(resp["result"])[strings.Index(string(resp["result"]), "refused ")+len("refused "):], "%d", &refused)
		if refused >= 100000-64 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server got only %d of its requests refused: %s", refused, resp["result"])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if seen == 0 || seen > 64 {
		t.Errorf("%d roots/list requests reached the client, want 1..64", seen)
	}
}

// A FAKE server that floods the proxy with requests and never reads its
// stdin (no real server does both) made the proxy's answers to it block on
// a full pipe: the proxy stopped reading the server, and a call held for
// it was never answered, even past every timeout. Now what waits for the
// server is bounded: at the bound the proxy stops it, the call gets an
// error saying why, the client's next request is answered, and the proxy
// exits when the client leaves.
func TestProxyStopsServerThatDoesNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "legacy")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	hostileScript(t, dir, "flood-noread")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, _ := rp.until("2")
	if !strings.Contains(string(resp["error"]), "does not read its input") || !strings.Contains(string(resp["error"]), "64 MiB") {
		t.Fatalf("the call to a server that does not read: %s %s\nstderr: %s", resp["result"], resp["error"], rp.stderr)
	}
	// The stopped server fails the session: a request the client sends
	// meanwhile gets an error, or finds the proxy gone (it ends when its
	// server has failed, as for any server that exits); never a result.
	io.WriteString(rp.in, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n")
	for l := range rp.lines {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(l), &m) == nil && string(m["id"]) == "3" && m["error"] == nil {
			t.Fatalf("a call after the server was stopped: %s", l)
		}
		if string(m["id"]) == "3" {
			break
		}
	}
	rp.in.Close()
	select {
	case <-rp.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("the proxy did not exit after its client left")
	}
	if !strings.Contains(rp.stderr.String(), "does not read its input") {
		t.Errorf("stderr does not say why the server was stopped:\n%s", rp.stderr)
	}
}

// A FAKE server appends a forged tools/list answer listing an unlocked tool
// to a 300 KiB result on the same line (before, the long line was copied
// unread and the forged message reached the client). Now every line the
// client gets is exactly one JSON object, none carries the forged tool, the
// call gets an error and the session fails (exit 3).
func TestProxyRefusesMessagesAfterLongResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "inject-long")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, before := rp.until("7")
	if resp["error"] == nil {
		t.Errorf("the call whose line carried a forged message got a result")
	}
	var rest []string
	for l := range rp.lines { // the proxy ends the session
		rest = append(rest, l)
	}
	for _, l := range append(before, rest...) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(l), &m) != nil {
			t.Errorf("a line is not one JSON object: %.200s", l)
		}
		if strings.Contains(l, "exfiltrate") {
			t.Errorf("the forged message reached the client: %.200s", l)
		}
	}
	<-rp.exited
	if !strings.Contains(rp.stderr.String(), "not exactly one JSON-RPC message") {
		t.Errorf("stderr does not say why the session ended:\n%s", rp.stderr)
	}
}

// The client sees the locked serverInfo in a result's _meta, not the one the
// server (FAKE, -mode meta-info) puts there.
func TestProxyResultMetaServerInfoIsLocked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "meta-info")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, _ := rp.until("1")
	if r := string(resp["result"]); strings.Contains(r, "evil") || !strings.Contains(r, `"io.modelcontextprotocol/serverInfo":{"name":"hostile-meta-info","version":"0.0.0"}`) {
		t.Errorf("result: %s", r)
	}
}

// The proxy logs a server's last stderr line even without a newline.
func TestProxyKeepsLastStderrLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "stderr-tail")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	rp.until("1")
	rp.in.Close()
	select {
	case <-rp.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("proxy did not exit")
	}
	if !strings.Contains(rp.stderr.String(), `stderr: hostile: last words without a newline`) {
		t.Errorf("stderr lacks the server's last line:\n%s", rp.stderr)
	}
}

// A 2026-07-28 server (FAKE, -mode ask-undeclared) answers a legacy client's
// call with input_required asking for sampling, roots and a made-up method.
// The client declared none of them (only elicitation): the proxy must not
// send it those requests (issue 13: server->client requests reach only a
// client that declared the capability), and the call fails with an error
// that says why instead of hanging.
func TestProxyBridgeAsksOnlyDeclaredCapabilities(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "ask-undeclared")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	rp := startLineProxy(t, dir, "srv")
	rp.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	rp.until(`"init"`)
	rp.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rp.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, before := rp.until("1")
	for _, l := range before {
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(l), &m)
		if m["method"] != nil && m["id"] != nil {
			t.Errorf("the client got a request it did not declare a capability for: %s", l)
		}
	}
	e := string(resp["error"])
	if e == "" || !strings.Contains(e, "capability the client did not declare") {
		t.Errorf("want an error naming the undeclared capability, got %s %s", resp["result"], e)
	}

	// A 2026-07-28 client gets the server's input_required passed through,
	// and the same rule holds for it: this call declared only elicitation.
	rp = startLineProxy(t, dir, "srv")
	rp.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}},"name":"echo","arguments":{}}}`)
	resp, _ = rp.until("2")
	if e := string(resp["error"]); !strings.Contains(e, "capability the client did not declare") || strings.Contains(string(resp["result"]), "sampling") {
		t.Errorf("modern client: want an error naming the undeclared capability, got %s %s", resp["result"], e)
	}
}

// A 2026-07-28 server (FAKE, -mode ask-flood) answers a legacy client's call
// with one input_required asking for 1000 elicitations: the proxy does not
// send the client more requests than it bounds server->client requests by
// (issue 11), and the call fails with an error saying why.
func TestProxyBridgeBoundsInputRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hostileScript(t, dir, "ask-flood")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	rp := startLineProxy(t, dir, "srv")
	rp.initialize()
	rp.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	resp, before := rp.until("1")
	asked := 0
	for _, l := range before {
		if strings.Contains(l, `"elicitation/create"`) {
			asked++
		}
	}
	if asked > 64 {
		t.Errorf("the proxy sent the client %d elicitation requests for one call", asked)
	}
	if e := string(resp["error"]); !strings.Contains(e, "1000 requests") {
		t.Errorf("want an error naming the 1000 requests, got %.300s %s", resp["result"], e)
	}
}
