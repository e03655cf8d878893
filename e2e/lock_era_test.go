//lint:file-ignore SA1019 a legacy client asked for sampling by a tool (go-sdk conformance server's test_sampling) is the case --era legacy is for; the test must use it

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lock --era chooses the era of a new entry and speaks only that one: a
// dual-era go-sdk server locks legacy with --era legacy and stays legacy on
// a re-lock; a server that does not answer in the era asked for fails the
// lock (nothing written) naming what it answered, and the suggested
// command, run as printed, locks it in the era it speaks; an entry of
// another era is refused, and the two suggested commands, run as printed,
// move it; a bad value and a re-lock with --era are usage errors.
func TestLockEra(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "mcp.lock")
	run := func(args ...string) (string, int) {
		_, stderr, code := mcpsum(t, dir, nil, args...)
		return stderr, code
	}
	runHint := func(stderr, lead string) {
		t.Helper()
		next := hintCommand(t, stderr, lead)
		args := strings.Fields(next)
		if args[0] != "mcpsum" {
			t.Fatalf("hint %q is not an mcpsum command", next)
		}
		if out, code := run(args[1:]...); code != 0 {
			t.Fatalf("the suggested %q: exit %d\n%s", next, code, out)
		}
	}
	era := func(name string) string {
		t.Helper()
		l, _ := readLock(t, dir)
		s, ok := l.Servers[name]
		if !ok {
			t.Fatalf("no entry %s in the lockfile", name)
		}
		if len(s.SupportedVersions) > 0 {
			return "modern " + s.ProtocolVersion
		}
		return "legacy " + s.ProtocolVersion
	}

	mustLock(t, dir, nil, "--lockfile", lockPath, "--era", "legacy", "--name", "dual", "--", bin.gosrv)
	if got := era("dual"); got != "legacy 2025-11-25" {
		t.Fatalf("--era legacy of a dual-era server locked %s", got)
	}
	mustLock(t, dir, nil, "--lockfile", lockPath, "--name", "dual")
	if got := era("dual"); got != "legacy 2025-11-25" {
		t.Fatalf("a re-lock moved the legacy entry of a dual-era server to %s", got)
	}
	if _, stderr, code := mcpsum(t, dir, nil, "verify", "--lockfile", lockPath); code != 0 {
		t.Fatalf("verify of the --era legacy entry: exit %d\n%s", code, stderr)
	}
	before, _ := os.ReadFile(lockPath)
	unchanged := func(what string) {
		t.Helper()
		if now, _ := os.ReadFile(lockPath); string(now) != string(before) {
			t.Fatalf("%s changed the lockfile", what)
		}
	}

	// A usage error names the allowed values; --era is for a new entry.
	if stderr, code := run("lock", "--lockfile", lockPath, "--era", "2025", "--name", "x", "--", bin.gosrv); code != 2 || !strings.Contains(stderr, "want one of auto, legacy, 2026-07-28") {
		t.Fatalf("--era 2025: exit %d\n%s", code, stderr)
	}
	if stderr, code := run("lock", "--lockfile", lockPath, "--era", "legacy"); code != 2 || !strings.Contains(stderr, "--era applies to a new entry") {
		t.Fatalf("re-lock with --era: exit %d\n%s", code, stderr)
	}
	if stderr, code := run("lock", "--lockfile", lockPath, "--era", "legacy", "--name", "dual"); code != 2 || !strings.Contains(stderr, "re-lock it without --era") {
		t.Fatalf("re-lock of a legacy entry with --era legacy: exit %d\n%s", code, stderr)
	} else {
		runHint(stderr, "re-lock it without --era: ")
	}
	unchanged("a refused --era")

	// Legacy-only (go-sdk answers server/discover with -32022) asked for 2026-07-28.
	stderr, code := run("lock", "--lockfile", lockPath, "--era", "2026-07-28", "--name", "old", "--", bin.gosrv, "-versions", "2025-11-25,2025-06-18")
	if code != 3 || !strings.Contains(stderr, `server "old": --era 2026-07-28 locks it only in the 2026-07-28`) || !strings.Contains(stderr, `listing only ["2025-11-25", "2025-06-18"]`) {
		t.Fatalf("--era 2026-07-28 of a legacy-only server: exit %d\n%s", code, stderr)
	}
	unchanged("a failed --era 2026-07-28")
	runHint(stderr, "to lock it in the era it speaks (detected, newest first): ")
	if got := era("old"); got != "legacy 2025-11-25" {
		t.Fatalf("the suggested lock of the legacy-only server locked %s", got)
	}

	// 2026-07-28-only (refuses initialize with -32022; a FAKE: the real
	// SDKs still answer initialize) asked for legacy.
	stderr, code = run("lock", "--lockfile", lockPath, "--era", "legacy", "--name", "new", "--", bin.hostile, "-mode", "modern-only")
	if code != 3 || !strings.Contains(stderr, `server "new": --era legacy locks it only in the legacy`) || !strings.Contains(stderr, "initialize with -32022") {
		t.Fatalf("--era legacy of a 2026-07-28-only server: exit %d\n%s", code, stderr)
	}
	runHint(stderr, "to lock it in the era it speaks (detected, newest first): ")
	if got := era("new"); got != "modern 2026-07-28" {
		t.Fatalf("the suggested lock of the 2026-07-28-only server locked %s", got)
	}

	// A remote legacy-only server (go-sdk's stateful HTTP handler) asked
	// for 2026-07-28: the suggested lock keeps its --url.
	port := listenPort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	serveHTTP(t, port, nil, bin.gosrv, "-http", addr)
	stderr, code = run("lock", "--lockfile", lockPath, "--era", "2026-07-28", "--name", "web", "--url", "http://"+addr+"/mcp")
	if code != 3 || !strings.Contains(stderr, `server "web": --era 2026-07-28 locks it only`) {
		t.Fatalf("--era 2026-07-28 of a remote legacy-only server: exit %d\n%s", code, stderr)
	}
	runHint(stderr, "to lock it in the era it speaks (detected, newest first): ")
	if got := era("web"); got != "legacy 2025-11-25" {
		t.Fatalf("the suggested lock of the remote legacy-only server locked %s", got)
	}

	// An entry of another era is not moved: remove it, lock it again.
	before, _ = os.ReadFile(lockPath)
	stderr, code = run("lock", "--lockfile", lockPath, "--era", "2026-07-28", "--name", "dual", "--", bin.gosrv)
	if code != 2 || !strings.Contains(stderr, `entry "dual" of `+lockPath+` is locked in the legacy era, and lock moves no entry to another era`) {
		t.Fatalf("--era 2026-07-28 over a legacy entry: exit %d\n%s", code, stderr)
	}
	unchanged("a refused era move")
	runHint(stderr, "remove the entry: ")
	runHint(stderr, "then lock it again: ")
	if got := era("dual"); got != "modern 2026-07-28" {
		t.Fatalf("after the suggested remove and lock the entry is %s", got)
	}
}

// A legacy client calls go-sdk's conformance server's test_sampling, whose
// tool asks the client with a legacy sampling/createMessage. Locked as
// detected (2026-07-28), the server refuses that request itself, through
// `mcpsum proxy` and through `mcpsum serve` alike, and the client's result
// says why and how to fix it; the two commands it names, run as printed,
// lock the server in the legacy era, and then the client is asked through
// both.
func TestEraHintThroughProxyAndServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "goconf", "--", bin.goConf)
	var asked atomic.Int32
	opts := &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		asked.Add(1)
		return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "hi from the client"}, Model: "test"}, nil
	}}
	call := func(cs *mcp.ClientSession) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling", Arguments: map[string]any{"prompt": "say hi"}})
		if err != nil {
			t.Fatalf("test_sampling: %v", err)
		}
		var text []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text = append(text, tc.Text)
			}
		}
		return strings.Join(text, "\n")
	}
	_, env := taintState(t)
	throughBoth := func() (proxied, served string) {
		proxied = call(goClient(t, proxyCmd(dir, "goconf"), "legacy", opts))
		p := startServe(t, dir, "", env)
		defer p.stop(t)
		served = call(httpClient(t, p.at("goconf"), withToken{token: p.token}, "legacy", opts))
		return proxied, served
	}

	proxied, served := throughBoth()
	const lead = "lock it in the legacy era: "
	var fix string
	for how, got := range map[string]string{"proxy": proxied, "serve": served} {
		if !strings.Contains(got, "cannot be sent while serving a request on protocol version 2026-07-28") ||
			!strings.Contains(got, `mcpsum: server "goconf" is locked in the 2026-07-28 era`) || !strings.Contains(got, lead) {
			t.Fatalf("through %s the legacy client got no cause and fix:\n%s", how, got)
		}
		_, f, _ := strings.Cut(got, lead)
		if how == "proxy" {
			fix = f
		}
	}
	if asked.Load() != 0 {
		t.Fatalf("the client was asked %d times through a 2026-07-28 lock", asked.Load())
	}
	remove, again, ok := strings.Cut(fix, ", then ")
	if !ok {
		t.Fatalf("no two commands in %q", fix)
	}
	for _, c := range []string{remove, again} {
		args := strings.Fields(c)
		if args[0] != "mcpsum" {
			t.Fatalf("%q is not an mcpsum command", c)
		}
		if _, stderr, code := mcpsum(t, dir, nil, args[1:]...); code != 0 {
			t.Fatalf("the suggested %q: exit %d\n%s", c, code, stderr)
		}
	}
	l, _ := readLock(t, dir)
	if s := l.Servers["goconf"]; s.ProtocolVersion != "2025-11-25" || len(s.SupportedVersions) != 0 {
		t.Fatalf("after the suggested commands goconf is locked %s %v", s.ProtocolVersion, s.SupportedVersions)
	}
	proxied, served = throughBoth()
	for how, got := range map[string]string{"proxy": proxied, "serve": served} {
		if !strings.Contains(got, "hi from the client") || strings.Contains(got, "mcpsum:") {
			t.Errorf("through %s, locked legacy, the tool did not get the client's answer:\n%s", how, got)
		}
	}
	if asked.Load() != 2 {
		t.Errorf("the client was asked %d times, want 2 (once through each)", asked.Load())
	}
}

// import --era locks each new entry in that era, as lock --era does; an
// entry already locked in another era is refused (its config entry left as
// it is) while the others are imported, and the suggested commands, run as
// printed, move it.
func TestImportEra(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "mcp.lock")
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	config := `{"mcpServers": {"dual": {"command": ` + jsonStr(bin.gosrv) + `}, "old": {"command": ` + jsonStr(bin.gosrv) + `, "args": ["-versions", "2025-11-25"]}}}`
	os.WriteFile(cfg, []byte(config), 0o644)
	_, env := fakeHome(t)
	if _, stderr, code := mcpsum(t, dir, env, "import", "--era", "2025", cfg); code != 2 || !strings.Contains(stderr, "want one of auto, legacy, 2026-07-28") {
		t.Fatalf("import --era 2025: exit %d\n%s", code, stderr)
	}
	mustLock(t, dir, nil, "--lockfile", lockPath, "--name", "dual", "--", bin.gosrv) // detected: 2026-07-28
	out, stderr, code := mcpsum(t, dir, env, "import", "--lockfile", lockPath, "--write", "--era", "legacy", cfg)
	if code != 2 || !strings.Contains(stderr, `--era legacy: entry "dual" of `+lockPath+` is locked in the 2026-07-28 era`) {
		t.Fatalf("import --era legacy over a 2026-07-28 entry: exit %d\n%s%s", code, out, stderr)
	}
	l, _ := readLock(t, dir)
	if s := l.Servers["old"]; s.ProtocolVersion != "2025-11-25" {
		t.Fatalf("the other server was not imported legacy: %+v", s)
	}
	if s := l.Servers["dual"]; len(s.SupportedVersions) == 0 {
		t.Fatalf("the refused entry changed: %+v", s)
	}
	b, _ := os.ReadFile(cfg)
	if !strings.Contains(string(b), `"old": {"command": `+jsonStr(bin.mcpsum)) || !strings.Contains(string(b), `"dual": {"command": `+jsonStr(bin.gosrv)+`}`) {
		t.Fatalf("want old rewritten, dual left as it was:\n%s", b)
	}
	for _, lead := range []string{"remove the entry: ", "then lock it again: "} {
		next := hintCommand(t, stderr, lead)
		args := strings.Fields(next)
		if _, stderr, code := mcpsum(t, dir, env, args[1:]...); code != 0 {
			t.Fatalf("the suggested %q: exit %d\n%s", next, code, stderr)
		}
	}
	l, _ = readLock(t, dir)
	if s := l.Servers["dual"]; s.ProtocolVersion != "2025-11-25" || len(s.SupportedVersions) != 0 {
		t.Fatalf("after the suggested commands dual is %s %v", s.ProtocolVersion, s.SupportedVersions)
	}
}
