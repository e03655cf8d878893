package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One user lock, two clients: Claude Desktop runs the real filesystem
// server as "fs"; Cursor runs it too, over other folders, under the same
// name, plus the memory server. Importing Cursor's config skips its "fs"
// with a suggestion that leaves Claude's "fs" alone (a name of its own,
// fs-cursor); the suggested lock and proxy entry work, and since no client
// runs both filesystem servers, lock, show and verify report no shadowing
// between them. A client that does run both is told. Without ./mcp.lock,
// show and verify point at the user lock, and the command they suggest
// works.
func TestUserLockSharedByClients(t *testing.T) {
	t.Parallel()
	fsSrv, memSrv := npmServer(t, "server-filesystem"), npmServer(t, "server-memory")
	home, env := fakeHome(t)
	work := t.TempDir() // the folder the commands run in: no project configs, no mcp.lock
	dirA, dirB := t.TempDir(), t.TempDir()
	userLock := filepath.Join(home, ".config", "mcpsum", "mcp.lock")
	claude := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	writeConfig := func(path string, servers map[string]any) {
		t.Helper()
		b, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(claude, map[string]any{"fs": map[string]any{"command": "node", "args": []string{fsSrv, dirA}}})
	writeConfig(cursor, map[string]any{
		"fs":     map[string]any{"command": "node", "args": []string{fsSrv, dirB}},
		"memory": map[string]any{"command": "node", "args": []string{memSrv}},
	})
	if out, stderr, code := mcpsum(t, work, env, "import", "--client", "claude-desktop", "--write"); code != 0 {
		t.Fatalf("import claude-desktop: exit %d\n%s\n%s", code, out, stderr)
	}
	claudeAfter, _ := os.ReadFile(claude)
	out, stderr, code := mcpsum(t, work, env, "import", "--client", "cursor", "--write")
	if code != 0 {
		t.Fatalf("import cursor: exit %d\n%s\n%s", code, out, stderr)
	}
	m := regexp.MustCompile(`lock this one under a name of its own: (mcpsum lock [^\n]*?), then set this entry's command and args to: mcpsum proxy --lockfile (\S+) --name (\S+) \(`).FindStringSubmatch(out)
	if m == nil || m[3] != "fs-cursor" || m[2] != userLock {
		t.Fatalf("import cursor does not suggest a name of its own for fs:\n%s\n%s", out, stderr)
	}
	if strings.Contains(out, "replace the lock entry") {
		t.Errorf("the suggestion re-points Claude's fs:\n%s", out)
	}
	// The suggested lock command, as printed.
	args := shellFields(t, m[1])
	out, stderr, code = mcpsum(t, work, env, args[1:]...)
	if code != 0 || strings.Contains(stderr, "shadowing") {
		t.Fatalf("%s: exit %d (want 0, no shadowing: no client runs fs and fs-cursor together)\n%s\n%s", m[1], code, out, stderr)
	}
	if b, _ := os.ReadFile(claude); string(b) != string(claudeAfter) {
		t.Errorf("Claude's config changed")
	}
	// The suggested proxy entry for Cursor's fs.
	var cfg map[string]map[string]map[string]any
	b, _ := os.ReadFile(cursor)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["mcpServers"]["fs"] = map[string]any{"command": bin.mcpsum, "args": []string{"proxy", "--lockfile", userLock, "--name", "fs-cursor"}}
	writeConfig(cursor, map[string]any{"fs": cfg["mcpServers"]["fs"], "memory": cfg["mcpServers"]["memory"]})
	out, stderr, code = mcpsum(t, work, env, "verify", "--lockfile", userLock)
	if code != 0 || strings.Contains(out, "SHADOW") {
		t.Errorf("verify of the user lock: exit %d, want 0 and no shadowing\n%s\n%s", code, out, stderr)
	}
	if out, _, code := mcpsum(t, work, env, "show", "--lockfile", userLock, "--strict"); code != 0 || strings.Contains(out, "shadowing") {
		t.Errorf("show --strict of the user lock: exit %d\n%s", code, out)
	}
	// Cursor now also runs Claude's fs: the two filesystem servers shadow.
	writeConfig(cursor, map[string]any{"fs": cfg["mcpServers"]["fs"], "memory": cfg["mcpServers"]["memory"],
		"fs-a": map[string]any{"command": bin.mcpsum, "args": []string{"proxy", "--lockfile", userLock, "--name", "fs"}}})
	out, _, code = mcpsum(t, work, env, "show", "--lockfile", userLock, "--strict", "--compact")
	if code != 1 || !strings.Contains(out, `tool "read_text_file" of server "fs" and "read_text_file" of server "fs-cursor" have the same name`) {
		t.Errorf("show --strict with a client running both: exit %d, want 1 naming the pair\n%s", code, out)
	}
	// No ./mcp.lock: show and verify point at the user lock.
	for _, cmd := range []string{"show", "verify"} {
		_, stderr, code := mcpsum(t, work, env, cmd)
		hint := "pass --lockfile " + userLock
		if code == 0 || !strings.Contains(stderr, "your user lock") || !strings.Contains(stderr, hint) {
			t.Errorf("%s without ./mcp.lock: exit %d, want the user lock named\n%s", cmd, code, stderr)
			continue
		}
		if out, stderr, code := mcpsum(t, work, env, cmd, "--lockfile", userLock); code != 0 && code != 1 {
			t.Errorf("%s --lockfile %s (the hint): exit %d\n%s\n%s", cmd, userLock, code, out, stderr)
		}
	}
}

// shellFields splits a command line mcpsum printed (termtext.ShellArg
// quoting: single quotes) into its arguments.
func shellFields(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	inQuote, any := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			inQuote, any = !inQuote, true
		case c == ' ' && !inQuote:
			if any {
				out = append(out, cur.String())
				cur.Reset()
				any = false
			}
		case c == '\\' && !inQuote && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			any = true
		default:
			cur.WriteByte(c)
			any = true
		}
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}
