package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The real client CLIs read their own configs after import --write and
// reach every imported server through mcpsum proxy (their health check
// shows it connected), and the original servers after --undo. Claude Code
// rewrites ~/.claude.json on every start, so its undo is the per-entry one.
// Opt-in (the CLIs are large and each check takes seconds): set
// MCPSUM_E2E_CLIENTS to a folder holding the claude and gemini executables
// (npm install @anthropic-ai/claude-code @google/gemini-cli, then its
// node_modules/.bin). They run without an API key.
func TestImportRealClientCLIs(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("MCPSUM_E2E_CLIENTS")
	if clients == "" {
		t.Skip("set MCPSUM_E2E_CLIENTS to a folder with the claude and gemini CLIs to run this test")
	}
	home, env := fakeHome(t)
	proj := filepath.Join(home, "work", "proj")
	os.MkdirAll(proj, 0o755)
	put := func(p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"mem": {"command": `+jsonStr(bin.goMemory)+`}}}`)
	// The clients' own approvals of this project (as their first-run prompts would store them).
	put(filepath.Join(home, ".claude.json"), `{"mcpServers": {"seq": {"command": `+jsonStr(bin.goSeq)+`}},
 "projects": {`+jsonStr(proj)+`: {"enabledMcpjsonServers": ["mem"], "hasTrustDialogAccepted": true}}}`)
	put(filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"gmem": {"command": `+jsonStr(bin.goMemory)+`}}}`)
	put(filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+jsonStr(proj)+`: "TRUST_FOLDER"}`)
	env = append(env, "PATH="+filepath.Dir(bin.mcpsum)+":"+os.Getenv("PATH"))

	list := func(client string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(clients, client), "mcp", "list")
		cmd.Dir, cmd.Env = proj, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s mcp list: %v\n%s", client, err, out)
		}
		return string(out)
	}
	connected := func(out, name, command string) bool {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, name+": "+command) && strings.Contains(l, "Connected") {
				return true
			}
		}
		return false
	}
	if out := list("claude"); !connected(out, "mem", bin.goMemory) || !connected(out, "seq", bin.goSeq) {
		t.Fatalf("claude before import:\n%s", out)
	}
	for _, args := range [][]string{{"--client", "claude-code", "--trust-project"}, {"--client", "gemini"}} {
		if out, stderr, code := mcpsum(t, proj, env, append([]string{"import", "--write"}, args...)...); code != 0 {
			t.Fatalf("import --write %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	proxy := bin.mcpsum + " proxy --lockfile "
	out := list("claude")
	if !connected(out, "mem", proxy+filepath.Join(proj, "mcp.lock")+" --name mem") ||
		!connected(out, "seq", proxy+filepath.Join(home, ".config", "mcpsum", "mcp.lock")+" --name seq") {
		t.Errorf("claude after import:\n%s", out)
	}
	if out := list("gemini"); !connected(out, "gmem", proxy+filepath.Join(home, ".config", "mcpsum", "mcp.lock")+" --name gmem") {
		t.Errorf("gemini after import:\n%s", out)
	}
	for _, c := range []string{"claude-code", "gemini"} {
		if out, stderr, code := mcpsum(t, proj, env, "import", "--undo", "--client", c); code != 0 {
			t.Fatalf("import --undo --client %s: exit %d\n%s%s", c, code, out, stderr)
		}
	}
	if out := list("claude"); !connected(out, "mem", bin.goMemory) || !connected(out, "seq", bin.goSeq) {
		t.Errorf("claude after undo:\n%s", out)
	}
	if out := list("gemini"); !connected(out, "gmem", bin.goMemory) {
		t.Errorf("gemini after undo:\n%s", out)
	}
}
