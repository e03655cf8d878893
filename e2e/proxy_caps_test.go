//lint:file-ignore SA1019 the proxy bridges the legacy era's roots and sampling, deprecated in 2026-07-28; the tests must use them

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client capabilities through the proxy: the proxy's upstream session
// declares mcpsum's fixed set (roots, sampling, elicitation), and each
// server→client request reaches only a client that declared what it needs;
// the proxy answers the others at once.

// handlers is a go-sdk client declaring roots, sampling and elicitation,
// answering each with a recognisable value.
func handlers() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{},
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "sampled by the client"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"random": "e2e-elicited", "color": "red", "name": "e2e"}}, nil
		},
	}
}

// go-sdk's everything example speaks both eras, so lock pins it in
// 2026-07-28, and the proxy speaks to it only in that era (the lockfile
// format's rule). Its roots and sample tools ask the client with legacy
// requests, which go-sdk refuses inside a 2026-07-28 session: they work
// directly only when the client picks a legacy session. Through the proxy
// both client eras get what a direct session in the locked era gets,
// promptly: the tool's own error, not a hang and not a different answer;
// a legacy client's also carries mcpsum's note after the server's items,
// naming the cause and the lock in the legacy era that lets the server ask
// it (TestEraHintThroughProxyAndServe runs those commands). (Server→client requests that a server sends in its locked era do
// reach the client in all four era pairs: TestProxyServerToClientRequests.)
func TestProxyGoEverythingMatchesLockedEra(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "s", "--", bin.goEvery)
	root := &mcp.Root{URI: "file:///e2e-root", Name: "e2e"}
	for _, tool := range []string{"roots", "sample"} {
		direct := goClient(t, exec.Command(bin.goEvery), "modern", handlers(), root)
		want, err := callJSON(t, direct, tool, map[string]any{})
		direct.Close()
		if err != nil {
			t.Fatalf("%s directly in 2026-07-28: %v", tool, err)
		}
		for _, era := range []string{"legacy", "modern"} {
			proxied := goClient(t, proxyCmd(dir, "s"), era, handlers(), root)
			got, err := callJSON(t, proxied, tool, map[string]any{})
			if era == "legacy" && err == nil {
				got = withoutEraNote(t, got)
			}
			if err != nil || got != want {
				t.Errorf("%s, %s client through the proxy: %s %v; directly in the locked era: %s", tool, era, got, err, want)
			}
			proxied.Close()
		}
	}
	noLeftovers(t, dir)
}

// withoutEraNote is a tool result without mcpsum's era note, its last
// content item (the test fails when it is missing).
func withoutEraNote(t *testing.T, result string) string {
	t.Helper()
	var r map[string]json.RawMessage
	var content []json.RawMessage
	if json.Unmarshal([]byte(result), &r) != nil || json.Unmarshal(r["content"], &content) != nil || len(content) < 2 {
		t.Errorf("a legacy client's result has no mcpsum note after the server's items: %s", result)
		return result
	}
	last := string(content[len(content)-1])
	if !strings.Contains(last, `mcpsum: server \"s\" is locked in the 2026-07-28 era`) || !strings.Contains(last, "--era legacy --name s") {
		t.Errorf("the last item is not mcpsum's era note: %s", last)
	}
	i := strings.LastIndex(result, ","+last)
	return result[:i] + result[i+1+len(last):]
}

// allowedDirs polls list_allowed_directories until it satisfies ok (the
// server fetches the client's roots asynchronously after initialized).
func allowedDirs(t *testing.T, cs *mcp.ClientSession, ok func(string) bool) string {
	t.Helper()
	var got string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if got, err = callJSON(t, cs, "list_allowed_directories", map[string]any{}); err != nil {
			t.Fatal(err)
		}
		if ok(got) {
			break
		}
	}
	return got
}

// lockedFilesystem locks server-filesystem as "fs" with two folders, mine
// and other (which holds secret), in a new lockfile folder dir.
func lockedFilesystem(t *testing.T) (dir, mine, other, secret string, argv []string) {
	dir, mine, other = t.TempDir(), t.TempDir(), t.TempDir()
	secret = filepath.Join(other, "secret.txt")
	if err := os.WriteFile(secret, []byte("not for this client"), 0o644); err != nil {
		t.Fatal(err)
	}
	argv = []string{"node", npmServer(t, "server-filesystem"), mine, other}
	mustLock(t, dir, nil, append([]string{"--name", "fs", "--"}, argv...)...)
	return dir, mine, other, secret, argv
}

// server-filesystem, started with two folders, narrows itself to the
// client's root when the client declares roots. Through the proxy it does
// exactly the same (before, the proxy declared no capabilities, so it served
// both folders: the proxy made the server less confined); reading the other
// folder is refused in both cases. A client declaring no roots gets both
// folders, directly and through the proxy.
func TestProxyFilesystemNarrowsToClientRoot(t *testing.T) {
	t.Parallel()
	dir, mine, other, secret, argv := lockedFilesystem(t)
	root := &mcp.Root{URI: "file://" + mine, Name: "mine"}
	onlyMine := func(s string) bool { return strings.Contains(s, mine) && !strings.Contains(s, other) }

	for _, via := range []string{"directly", "through the proxy"} {
		cmd := exec.Command(argv[0], argv[1:]...)
		if via != "directly" {
			cmd = proxyCmd(dir, "fs")
		}
		cs := goClient(t, cmd, "legacy", handlers(), root)
		if got := allowedDirs(t, cs, onlyMine); !onlyMine(got) {
			t.Errorf("%s, a client with root %s: allowed %s", via, mine, got)
		}
		got, err := callJSON(t, cs, "read_text_file", map[string]any{"path": secret})
		if err != nil || !strings.Contains(got, `"isError":true`) || strings.Contains(got, "not for this client") {
			t.Errorf("%s: reading outside the client's root: %s %v", via, got, err)
		}
		cs.Close()

		cmd = exec.Command(argv[0], argv[1:]...)
		if via != "directly" {
			cmd = proxyCmd(dir, "fs")
		}
		cs = goClient(t, cmd, "legacy", nil) // declares no capabilities
		both := func(s string) bool { return strings.Contains(s, mine) && strings.Contains(s, other) }
		if got := allowedDirs(t, cs, both); !both(got) {
			t.Errorf("%s, a client without roots: allowed %s, want both folders", via, got)
		}
		cs.Close()
	}
	noLeftovers(t, dir)
}

// The npm server-everything adds tools for the capabilities its client
// declares; locked and proxied with mcpsum's set, they work through the
// proxy for a client that declared them, and a client that did not gets a
// prompt error from the proxy instead of a server waiting forever.
func TestProxyEverythingDeclaredCapabilities(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "e", "--", "node", npmServer(t, "server-everything"))
	root := &mcp.Root{URI: "file:///e2e-root", Name: "e2e-root"}

	cs := goClient(t, proxyCmd(dir, "e"), "legacy", handlers(), root)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get-roots-list", map[string]any{}, "file:///e2e-root"},
		{"trigger-sampling-request", map[string]any{"prompt": "hi"}, "sampled by the client"},
		{"trigger-elicitation-request", map[string]any{}, "e2e"},
	} {
		got, err := callJSON(t, cs, tc.tool, tc.args)
		if err != nil || !strings.Contains(got, tc.want) || strings.Contains(got, `"isError":true`) {
			t.Errorf("%s through the proxy: %s %v (want the client's answer %q)", tc.tool, got, err, tc.want)
		}
	}
	cs.Close()

	bare := goClient(t, proxyCmd(dir, "e"), "legacy", nil) // declares nothing
	// A first call waits for the server's start and surface check (seconds
	// on a loaded machine); what is timed below is the sampling call alone.
	if got, err := callJSON(t, bare, "get-sum", map[string]any{"a": 1, "b": 2}); err != nil || !strings.Contains(got, "is 3") {
		t.Fatalf("get-sum through the proxy: %s %v", got, err)
	}
	// Unanswered, the server's sampling request would wait for its SDK's
	// request timeout (60 s); the proxy's refusal comes at once.
	start := time.Now()
	got, err := callJSON(t, bare, "trigger-sampling-request", map[string]any{"prompt": "hi"})
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("a client without sampling waited %s for trigger-sampling-request", took)
	}
	if err == nil && !strings.Contains(got, `"isError":true`) {
		t.Errorf("a client without sampling got a sampling result: %s", got)
	}
	if msg := got + errString(err); !strings.Contains(msg, "did not declare the sampling capability") {
		t.Errorf("the error does not say the client did not declare sampling: %s", msg)
	}
	bare.Close()
	noLeftovers(t, dir)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Nothing of a server's requests reaches the client before the surface
// check passes, nor after a quarantine: server-filesystem asks for roots
// right after initialized, while the proxy is still checking; here the
// server behind the locked command changed (memory was locked, filesystem
// answers), so the check quarantines it, and the client, which declared
// roots, never sees that roots/list.
func TestProxyHoldsServerRequestsUntilChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := func(argv ...string) {
		q := make([]string, len(argv))
		for i, a := range argv {
			q[i] = "'" + a + "'"
		}
		if err := os.WriteFile(filepath.Join(dir, "srv.sh"), []byte("#!/bin/sh\nexec "+strings.Join(q, " ")+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("node", npmServer(t, "server-memory"))
	mustLock(t, dir, []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}, "--name", "s", "--", "sh", "srv.sh")
	script("node", npmServer(t, "server-filesystem"), t.TempDir())

	p := startRaw(t, proxyCmd(dir, "s"))
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"1"}}}`)
	p.await("0")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}`)
	if m := p.await("1"); !strings.Contains(string(m["error"]), "-32002") {
		t.Fatalf("want the quarantine error, got %s %s", m["result"], m["error"])
	}
	time.Sleep(500 * time.Millisecond) // anything still on its way
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	p.await("2")
	for _, m := range p.skipped {
		if m["method"] != nil && m["id"] != nil {
			t.Errorf("the client got a server request %s although the server was quarantined", m["method"])
		}
	}
	if code := p.wait(); code != 1 {
		t.Errorf("exit %d, want 1 (quarantined)\n%s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "QUARANTINED") {
		t.Errorf("no quarantine in stderr:\n%s", p.stderr)
	}
	noLeftovers(t, dir)
}
