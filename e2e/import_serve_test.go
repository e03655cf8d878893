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

// importServeSetup writes a Claude Code user config (~/.claude.json) with
// the go-sdk memory server and a Gemini CLI one with sequentialthinking in a
// fresh home, imports both with --serve-url at a free port into
// dir/mcp.lock, and starts mcpsum serve there. It returns the home, its
// environment, serve and the configs' bytes before the import.
func importServeSetup(t *testing.T) (home string, env []string, p *serveProc, before map[string]string) {
	t.Helper()
	home, env = fakeHome(t)
	dir := filepath.Join(home, "work")
	before = map[string]string{
		filepath.Join(home, ".claude.json"):             `{"mcpServers": {"mem": {"command": ` + jsonStr(bin.goMemory) + `, "env": {"MEMORY_FILE_PATH": ` + jsonStr(filepath.Join(home, "mem.jsonl")) + `}}}}` + "\n",
		filepath.Join(home, ".gemini", "settings.json"): `{"mcpServers": {"gseq": {"command": ` + jsonStr(bin.goSeq) + `}}}` + "\n",
	}
	for f, s := range before {
		must(t, os.MkdirAll(filepath.Dir(f), 0o755))
		must(t, os.WriteFile(f, []byte(s), 0o600))
	}
	must(t, os.MkdirAll(dir, 0o755))
	port := freePort(t)
	for _, c := range []string{"claude-code", "gemini"} {
		out, stderr, code := mcpsum(t, dir, env, "import", "--client", c, "--lockfile", filepath.Join(dir, "mcp.lock"), "--serve-url", "http://127.0.0.1:"+port, "--write")
		if code != 0 {
			t.Fatalf("import --client %s --serve-url --write: exit %d\n%s%s", c, code, out, stderr)
		}
		if !strings.Contains(out, "from the environment variable MCPSUM_SERVE_TOKEN") {
			t.Errorf("import --client %s did not say where the token comes from:\n%s", c, out)
		}
	}
	p = startServeAt(t, port, dir, "", append(os.Environ(), env...))
	return home, env, p, before
}

// The point "import can point a client at serve by URL": import
// --serve-url rewrites each imported entry to serve's URL of its locked
// name with the token header in the client's syntax; a go-sdk client
// connects through exactly the URL and header written into each config
// (the header's variable expanded as the client would) and calls a tool;
// --undo restores both files byte for byte. A client whose config cannot
// carry the header is refused (exit 2) before anything is locked, and its
// hint (import without --serve-url) works.
func TestImportServeURL(t *testing.T) {
	t.Parallel()
	home, env, p, before := importServeSetup(t)
	type entry struct {
		Type    string
		URL     string `json:"url"`
		HTTPURL string `json:"httpUrl"`
		Headers map[string]string
		Command string
	}
	read := func(f, name string) entry {
		var cfg struct{ MCPServers map[string]entry }
		b, err := os.ReadFile(f)
		must(t, err)
		must(t, json.Unmarshal(b, &cfg))
		return cfg.MCPServers[name]
	}
	claude := read(filepath.Join(home, ".claude.json"), "mem")
	gemini := read(filepath.Join(home, ".gemini", "settings.json"), "gseq")
	if claude.Type != "http" || claude.URL != p.at("mem") || claude.Command != "" {
		t.Errorf("claude-code entry: %+v (serve at %s)", claude, p.url)
	}
	if gemini.HTTPURL != p.at("gseq") || gemini.Command != "" {
		t.Errorf("gemini entry: %+v (serve at %s)", gemini, p.url)
	}
	for _, c := range []struct {
		url, header, tool string
		args              map[string]any
	}{
		{claude.URL, claude.Headers["Authorization"], "read_graph", map[string]any{}},
		{gemini.HTTPURL, gemini.Headers["Authorization"], "", nil},
	} {
		if c.header != "Bearer ${MCPSUM_SERVE_TOKEN}" {
			t.Fatalf("Authorization header %q, want Bearer ${MCPSUM_SERVE_TOKEN}", c.header)
		}
		token := strings.TrimPrefix(os.Expand(c.header, func(v string) string {
			if v == "MCPSUM_SERVE_TOKEN" {
				return p.token
			}
			return ""
		}), "Bearer ")
		cs := httpClient(t, c.url, withToken{token: token}, "legacy", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		tl, err := cs.ListTools(ctx, nil)
		if err != nil || len(tl.Tools) == 0 {
			t.Errorf("tools/list through %s: %v %+v", c.url, err, tl)
		}
		if c.tool != "" {
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil || res.IsError {
				t.Errorf("%s through %s: %v %+v", c.tool, c.url, err, res)
			}
		}
		cancel()
	}
	for _, c := range []string{"claude-code", "gemini"} {
		if out, stderr, code := mcpsum(t, home, env, "import", "--undo", "--client", c); code != 0 {
			t.Fatalf("import --undo --client %s: exit %d\n%s%s", c, code, out, stderr)
		}
	}
	for f, s := range before {
		if b, _ := os.ReadFile(f); string(b) != s {
			t.Errorf("%s after undo:\n%s\nwant\n%s", f, b, s)
		}
	}

	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	must(t, os.MkdirAll(filepath.Dir(desktop), 0o755))
	must(t, os.WriteFile(desktop, []byte(`{"mcpServers": {"m": {"command": `+jsonStr(bin.goMemory)+`}}}`), 0o600))
	out, stderr, code := mcpsum(t, home, env, "import", "--client", "claude-desktop", "--serve-url", p.url, "--write")
	if code != 2 || !strings.Contains(stderr, "Claude Desktop's config cannot send mcpsum serve's bearer token") || !strings.Contains(stderr, "without --serve-url") {
		t.Errorf("claude-desktop --serve-url: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "mcpsum", "mcp.lock")); err == nil {
		t.Errorf("the refused import locked something")
	}
	if out, stderr, code := mcpsum(t, home, env, "import", "--client", "claude-desktop"); code != 0 || !strings.Contains(out, "proxy") {
		t.Errorf("the hint's import without --serve-url: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := mcpsum(t, home, env, "import", "--client", "claude-code", "--serve-url", "http://example.com:8808"); code != 2 || !strings.Contains(stderr, "plain http to example.com") {
		t.Errorf("--serve-url to plain http elsewhere: exit %d\n%s%s", code, out, stderr)
	}
}

// The real Claude Code and Gemini CLIs, configured by import --serve-url,
// reach the servers through mcpsum serve: their `mcp list` health check
// shows each connected with serve's token in MCPSUM_SERVE_TOKEN, and
// failing with a wrong one. Opt-in like TestImportRealClientCLIs
// (MCPSUM_E2E_CLIENTS: a folder with the claude and gemini executables);
// everything happens in a temporary HOME.
func TestImportServeRealClientCLIs(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("MCPSUM_E2E_CLIENTS")
	if clients == "" {
		t.Skip("set MCPSUM_E2E_CLIENTS to a folder with the claude and gemini CLIs to run this test")
	}
	home, env, p, _ := importServeSetup(t)
	// Gemini CLI's own approval of the folder it runs in (as its first-run prompt would store it).
	must(t, os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{`+jsonStr(home)+`: "TRUST_FOLDER"}`), 0o600))
	list := func(client, token string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(clients, client), "mcp", "list")
		cmd.Dir = home
		cmd.Env = append(append(os.Environ(), env...), "MCPSUM_SERVE_TOKEN="+token)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s mcp list: %v\n%s", client, err, out)
		}
		return string(out)
	}
	line := func(out, name, url string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, name+": "+url) {
				return l
			}
		}
		return ""
	}
	for _, c := range []struct{ cli, name string }{{"claude", "mem"}, {"gemini", "gseq"}} {
		out := list(c.cli, p.token)
		if l := line(out, c.name, p.at(c.name)); !strings.Contains(l, "Connected") || strings.Contains(l, "Disconnected") {
			t.Errorf("%s mcp list with serve's token:\n%s", c.cli, out)
		}
		t.Logf("%s with serve's token: %s", c.cli, line(out, c.name, p.at(c.name)))
		out = list(c.cli, "wrong-"+p.token)
		if l := line(out, c.name, p.at(c.name)); !strings.Contains(l, "Failed to connect") && !strings.Contains(l, "Disconnected") {
			t.Errorf("%s mcp list with a wrong token:\n%s", c.cli, out)
		}
		t.Logf("%s with a wrong token: %s", c.cli, line(out, c.name, p.at(c.name)))
	}
}
