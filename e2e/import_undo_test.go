package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 22: `--undo --client claude-code` after import wrote two files, one
// of which Claude Code then rewrote itself (it does, on every start): both
// are undone, the rewritten one entry by entry, keeping the client's own
// changes; --name undoes a single entry.
func TestImportUndoTwoFilesAfterTheClientRewrote(t *testing.T) {
	t.Parallel()
	home, env := fakeHome(t)
	proj := t.TempDir()
	mcpJSON := filepath.Join(proj, ".mcp.json")
	projSrc := `{"mcpServers": {"mem": {"command": ` + jsonStr(bin.goMemory) + `}}}` + "\n"
	os.WriteFile(mcpJSON, []byte(projSrc), 0o644)
	claudeJSON := filepath.Join(home, ".claude.json")
	userSrc := `{"mcpServers": {"seq": {"command": ` + jsonStr(bin.goSeq) + `, "args": []}}}` + "\n"
	os.WriteFile(claudeJSON, []byte(userSrc), 0o600)

	importAll := func() {
		t.Helper()
		out, stderr, code := mcpsum(t, proj, env, "import", "--client", "claude-code", "--write", "--trust-project")
		if code != 0 || strings.Count(out, "wrote ") != 2 {
			t.Fatalf("import --write: exit %d\n%s%s", code, out, stderr)
		}
	}
	clientRewrites := func() {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal(mustRead(t, claudeJSON), &v); err != nil {
			t.Fatal(err)
		}
		v["numStartups"] = 4
		b, _ := json.MarshalIndent(v, "", "  ")
		os.WriteFile(claudeJSON, b, 0o600)
	}
	importAll()
	clientRewrites()
	out, stderr, code := mcpsum(t, proj, env, "import", "--undo", "--client", "claude-code")
	if code != 0 || !strings.Contains(out, "restored .mcp.json from ") || !strings.Contains(out, "put back the command and args of seq in "+claudeJSON) {
		t.Fatalf("undo --client claude-code: exit %d\n%s%s", code, out, stderr)
	}
	if string(mustRead(t, mcpJSON)) != projSrc {
		t.Errorf(".mcp.json not restored byte for byte:\n%s", mustRead(t, mcpJSON))
	}
	var back struct {
		NumStartups int `json:"numStartups"`
		MCPServers  map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(mustRead(t, claudeJSON), &back); err != nil || back.NumStartups != 4 || back.MCPServers["seq"].Command != bin.goSeq || len(back.MCPServers["seq"].Args) != 0 {
		t.Errorf("~/.claude.json after the per-entry undo (%v):\n%s", err, mustRead(t, claudeJSON))
	}

	// One entry only: the other file stays as import wrote it.
	os.WriteFile(claudeJSON, []byte(userSrc), 0o600)
	importAll()
	out, stderr, code = mcpsum(t, proj, env, "import", "--undo", "--client", "claude-code", "--name", "seq")
	if code != 0 || string(mustRead(t, claudeJSON)) != userSrc || !strings.Contains(string(mustRead(t, mcpJSON)), `"proxy"`) {
		t.Fatalf("undo --name seq: exit %d\n%s%s\n%s", code, out, stderr, mustRead(t, mcpJSON))
	}
	out, stderr, code = mcpsum(t, proj, env, "import", "--undo", "--client", "claude-code")
	if code != 0 || string(mustRead(t, mcpJSON)) != projSrc {
		t.Fatalf("undo of the rest: exit %d\n%s%s", code, out, stderr)
	}
	// A second undo: nothing left (no record, no entry runs the proxy), exit 0.
	out, stderr, code = mcpsum(t, proj, env, "import", "--undo", "--client", "claude-code")
	if code != 0 || !strings.Contains(out, "nothing left to undo: mcpsum has no record of writing ") || stderr != "" {
		t.Errorf("undo with nothing left: exit %d\n%s%s", code, out, stderr)
	}
}

// Issue 22: a server skipped because another config has one of the same
// name gets a lock command with its env names, and that command works.
// Issue 33: the name it suggests is the server's own (NAME-CLIENT), so the
// other config's server keeps its entry.
func TestImportNameCollisionSuggestion(t *testing.T) {
	t.Parallel()
	home, env := fakeHome(t)
	proj := t.TempDir()
	lock := filepath.Join(proj, "mcp.lock")
	os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(`{"mcpServers": {"mem": {"command": `+jsonStr(bin.goMemory)+`}}}`), 0o644)
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": {"mem": {"command": `+jsonStr(bin.goSeq)+`, "env": {"SEQ_TOKEN": "t0ken-value"}}}}`), 0o600)
	out, stderr, code := mcpsum(t, proj, env, "import", "--lockfile", lock, "--client", "claude-code", "--write", "--trust-project")
	const intro, outro = "lock this one under a name of its own: ", ", then set this entry's command and args to: "
	i, j := strings.Index(out, intro), strings.Index(out, outro)
	if code != 0 || i < 0 || j < i {
		t.Fatalf("import with a name collision: exit %d\n%s%s", code, out, stderr)
	}
	suggested := out[i+len(intro) : j]
	want := "mcpsum lock --lockfile " + lock + " --name mem-claude-code --env SEQ_TOKEN -- " + bin.goSeq
	if suggested != want || strings.Contains(out+stderr, "t0ken-value") {
		t.Fatalf("suggested %q, want %q", suggested, want)
	}
	args := strings.Fields(suggested)[1:]
	if out, stderr, code := mcpsum(t, proj, env, args...); code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", suggested, code, out, stderr)
	}
	if out, _, code := mcpsum(t, proj, env, "verify", "--offline", "--lockfile", lock); code != 0 || !strings.Contains(out, "2 servers") {
		t.Errorf("verify: exit %d\n%s", code, out)
	}
}
