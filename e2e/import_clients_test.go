package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A committed VS Code project config (JSONC, with inputs and comments) gets
// the workspace variable and `mcpsum` from PATH, never this machine's paths;
// Claude Code's ~/.claude.json user and per-project servers are found with
// --client; Codex's TOML gets the lines to paste and is left untouched; with
// neither --client nor a file, import lists what it found.
func TestImportClients(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vscode := filepath.Join(proj, ".vscode", "mcp.json")
	vsSrc := `{
  // shared with the team
  "inputs": [{ "type": "promptString", "id": "key", "password": true }],
  "servers": {
    "memory": {
      "type": "stdio",
      "command": ` + jsonStr(bin.goMemory) + `, /* go-sdk example */
      "env": { "API_KEY": "${input:key}" },
      "envFile": "${workspaceFolder}/.env",
    },
    "interp": { "command": "${workspaceFolder}/bin/srv" },
  },
}
`
	write(vscode, vsSrc)
	write(filepath.Join(proj, ".env"), "MEMORY_FILE_PATH=/tmp/never-in-the-lock.jsonl\n")
	claudeJSON := filepath.Join(home, ".claude.json")
	claudeSrc := `{"numStartups": 3, "mcpServers": {"seq": {"type": "stdio", "command": ` + jsonStr(bin.goSeq) + `, "args": [], "env": {}}},
 "projects": {"/w/p": {"mcpServers": {"seq2": {"command": ` + jsonStr(bin.goSeq) + `}}}}}
`
	write(claudeJSON, claudeSrc)
	codex := filepath.Join(home, ".codex", "config.toml")
	codexSrc := "# my codex\n[mcp_servers.mem]\ncommand = " + jsonStr(bin.goMemory) + "\nenv_vars = [\"API_KEY\"]\n"
	write(codex, codexSrc)
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"PATH=" + filepath.Dir(bin.mcpsum) + ":" + os.Getenv("PATH")}

	out, stderr, code := mcpsum(t, proj, env, "import")
	if code != 0 {
		t.Fatalf("import (list): exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"claude-code     " + claudeJSON + ": 2 lockable",
		"vscode          .vscode/mcp.json: 1 lockable, 1 interpolated",
		"codex           " + codex + ": 1 lockable",
		"import one: mcpsum import --client NAME",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}

	// The next command the listing names.
	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "vscode", "--write")
	if code != 0 {
		t.Fatalf("import --client vscode: exit %d\n%s%s", code, out, stderr)
	}
	got, _ := os.ReadFile(vscode)
	want := strings.Replace(vsSrc, `"command": `+jsonStr(bin.goMemory)+`, /* go-sdk example */`,
		`"command": "mcpsum", "args": ["proxy", "--lockfile", "${workspaceFolder}/mcp.lock", "--name", "memory"], /* go-sdk example */`, 1)
	if string(got) != want {
		t.Fatalf("project config:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(out, "skip   interp: its command line uses ${workspaceFolder}") {
		t.Errorf("no note for the interpolated entry:\n%s", out)
	}

	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "claude-code", "--write")
	if code != 0 {
		t.Fatalf("import --client claude-code: exit %d\n%s%s", code, out, stderr)
	}
	got, _ = os.ReadFile(claudeJSON)
	lock := filepath.Join(proj, "mcp.lock")
	for _, n := range []string{"seq", "seq2"} {
		if !strings.Contains(string(got), `"command": `+jsonStr(bin.mcpsum)+`, "args": ["proxy", "--lockfile", `+jsonStr(lock)+`, "--name", "`+n+`"]`) {
			t.Errorf("%s not rewritten with absolute paths in ~/.claude.json:\n%s", n, got)
		}
	}
	if !strings.Contains(out, "seq2 [/w/p]") || !strings.HasPrefix(string(got), `{"numStartups": 3, "mcpServers": {"seq": {"type": "stdio", "command": `) {
		t.Errorf("per-project entry or untouched prefix missing:\n%s\n%s", out, got)
	}

	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "codex", "--write")
	if code != 0 {
		t.Fatalf("import --client codex: exit %d\n%s%s", code, out, stderr)
	}
	snippet := "[mcp_servers.mem]\ncommand = " + jsonStr(bin.mcpsum) + "\nargs = [\"proxy\", \"--lockfile\", " + jsonStr(lock) + ", \"--name\", \"mem\"]\n"
	if !strings.Contains(out, "which mcpsum does not rewrite") || !strings.Contains(out, snippet) {
		t.Errorf("codex snippet missing:\n%s", out)
	}
	if b, _ := os.ReadFile(codex); string(b) != codexSrc {
		t.Errorf("the TOML file was changed")
	}

	// Everything is locked; the lock holds the env names only.
	out, _, code = mcpsum(t, proj, env, "verify", "--offline")
	if code != 0 || !strings.Contains(out, "4 servers") {
		t.Errorf("verify --offline after the imports: exit %d\n%s", code, out)
	}
	lockBytes, _ := os.ReadFile(lock)
	if !strings.Contains(string(lockBytes), "\"API_KEY\",\n        \"MEMORY_FILE_PATH\"") || strings.Contains(string(lockBytes), "input:key") || strings.Contains(string(lockBytes), "never-in-the-lock") {
		t.Errorf("envPassthrough of memory is not env + envFile names:\n%s", lockBytes)
	}
}
