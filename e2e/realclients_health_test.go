//go:build unix

package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The real client CLIs' own health checks through mcpsum proxy: a locked
// server that cannot start (its binary removed after locking) shows as
// failed, as it does directly, and one that starts shows as connected.
// Opt-in like TestImportRealClientCLIs (MCPSUM_E2E_CLIENTS: a folder with
// the claude and gemini executables; codex is checked when it is there too:
// npm install @anthropic-ai/claude-code @google/gemini-cli @openai/codex).
// They run without an API key. Cline has no health listing of its own.
func TestRealClientCLIsHealth(t *testing.T) {
	t.Parallel()
	clients := os.Getenv("MCPSUM_E2E_CLIENTS")
	if clients == "" {
		t.Skip("set MCPSUM_E2E_CLIENTS to a folder with the claude and gemini CLIs (codex optional) to run this test")
	}
	home, env := fakeHome(t)
	proj := filepath.Join(home, "proj")
	dead := filepath.Join(home, "dead-memory")
	os.MkdirAll(proj, 0o755)
	b, err := os.ReadFile(bin.goMemory)
	if err != nil {
		t.Fatal(err)
	}
	put := func(p, s string, mode os.FileMode) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	put(dead, string(b), 0o755)
	mustLock(t, proj, env, "--name", "live", "--", bin.goMemory)
	mustLock(t, proj, env, "--name", "dead", "--", dead)
	if err := os.Remove(dead); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(proj, "mcp.lock")
	proxyArgs := func(name string) string {
		return `["proxy", "--lockfile", ` + jsonStr(lock) + `, "--name", "` + name + `"]`
	}
	servers := `{"mcpServers": {
 "live": {"command": ` + jsonStr(bin.mcpsum) + `, "args": ` + proxyArgs("live") + `},
 "dead": {"command": ` + jsonStr(bin.mcpsum) + `, "args": ` + proxyArgs("dead") + `},
 "directlive": {"command": ` + jsonStr(bin.goMemory) + `},
 "directdead": {"command": ` + jsonStr(dead) + `}}}`
	put(filepath.Join(home, ".claude.json"), servers, 0o600)
	put(filepath.Join(home, ".gemini", "settings.json"), servers, 0o600)
	put(filepath.Join(home, ".gemini", "trustedFolders.json"), `{`+jsonStr(proj)+`: "TRUST_FOLDER"}`, 0o600)
	toml := func(s string) string { return `'` + s + `'` }
	put(filepath.Join(home, ".codex", "config.toml"), "[mcp_servers.live]\ncommand = "+toml(bin.mcpsum)+
		"\nargs = ['proxy', '--lockfile', "+toml(lock)+", '--name', 'live']\n"+
		"[mcp_servers.dead]\ncommand = "+toml(bin.mcpsum)+"\nargs = ['proxy', '--lockfile', "+toml(lock)+", '--name', 'dead']\n"+
		"[mcp_servers.directdead]\ncommand = "+toml(dead)+"\n", 0o600)
	clientEnv := append(os.Environ(), env...)

	// Each CLI's health line of a server: its name and command, then the status.
	line := func(out, name string) string {
		for _, l := range strings.Split(out, "\n") {
			if i := strings.Index(l, name+": "); i >= 0 && (i == 0 || l[i-1] == ' ') {
				return l
			}
		}
		return ""
	}
	for _, c := range []struct{ cli, ok, failed string }{
		{"claude", "✔ Connected", "✘ Failed to connect"},
		{"gemini", "- Connected", "- Disconnected"},
	} {
		t.Run(c.cli, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(clients, c.cli), "mcp", "list")
			cmd.Dir, cmd.Env = proj, clientEnv
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s mcp list: %v\n%s", c.cli, err, out)
			}
			t.Logf("%s mcp list (%.1fs):\n%s", c.cli, time.Since(start).Seconds(), out)
			for name, want := range map[string]string{"live": c.ok, "directlive": c.ok, "dead": c.failed, "directdead": c.failed} {
				if l := line(string(out), name); !strings.HasSuffix(strings.TrimSpace(l), want) {
					t.Errorf("%s: server %s shows %q, want it to end %q", c.cli, name, l, want)
				}
			}
		})
	}
	t.Run("codex", func(t *testing.T) {
		codex := filepath.Join(clients, "codex")
		if _, err := os.Stat(codex); err != nil {
			t.Skip("no codex in MCPSUM_E2E_CLIENTS (npm install @openai/codex)")
		}
		out := codexStartup(t, codex, proj, clientEnv)
		t.Logf("codex start-up, its MCP lines:\n%s", out)
		for name, failed := range map[string]bool{"live": false, "dead": true, "directdead": true} {
			if got := strings.Contains(out, `startup failed server_name="`+name+`"`); got != failed {
				t.Errorf("codex: server %s failed to start: %v, want %v", name, got, failed)
			}
		}
		if !strings.Contains(out, "tool_count=9 ") {
			t.Errorf("codex: its tool catalog does not hold live's 9 tools")
		}
	})
}

// codexStartup runs `codex exec` (no API key, so it never gets past the
// model request) until its MCP servers have started and its tool catalog is
// built, and returns its MCP log lines. Codex has no health listing; its
// start-up log is what its UI shows.
func codexStartup(t *testing.T, codex, dir string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--skip-git-repo-check", "say hi")
	cmd.Dir, cmd.Env = dir, append(env, "RUST_LOG=codex_mcp=debug,codex_otel=info")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "startup failed") || strings.Contains(l, "mcp.binding_catalog") {
			lines = append(lines, l[max(0, strings.Index(l, "}: ")):])
		}
		if strings.Contains(l, "mcp.binding_catalog") {
			break
		}
	}
	cancel()
	cmd.Wait()
	out := strings.Join(lines, "\n")
	if !strings.Contains(out, "mcp.binding_catalog") {
		t.Fatalf("codex built no MCP tool catalog within 90 s:\n%s", out)
	}
	return out
}
