package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A committed VS Code project config (JSONC, with inputs and comments) gets
// the workspace variable for the lockfile and this mcpsum's absolute path
// (as every config does), and its commands run only with --trust-project;
// Claude Code's ~/.claude.json gives its user servers and this project's,
// into the user lock, leaving other projects' out; Codex's TOML gets the
// lines to paste and is left untouched; with neither --client nor a file,
// import lists what it found.
func TestImportClients(t *testing.T) {
	t.Parallel()
	home, env := fakeHome(t)
	proj, other := t.TempDir(), t.TempDir()
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
 "projects": {` + jsonStr(other) + `: {"mcpServers": {"seq2": {"command": ` + jsonStr(bin.goSeq) + `}}},
  ` + jsonStr(proj) + `: {"mcpServers": {"seq3": {"command": ` + jsonStr(bin.goMemory) + `}}}}}
`
	write(claudeJSON, claudeSrc)
	codex := filepath.Join(home, ".codex", "config.toml")
	codexSrc := "# my codex\n[mcp_servers.mem]\ncommand = " + jsonStr(bin.goMemory) + "\nenv_vars = [\"API_KEY\"]\n"
	write(codex, codexSrc)
	env = append(env, "PATH="+filepath.Dir(bin.mcpsum)+":"+os.Getenv("PATH"))

	out, stderr, code := mcpsum(t, proj, env, "import")
	if code != 0 {
		t.Fatalf("import (list): exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"claude-code     " + claudeJSON + ": 2 lockable, (and 1 of other projects, left out here)",
		"vscode          .vscode/mcp.json: 1 lockable, 1 interpolated",
		"codex           " + codex + ": 1 lockable",
		"import one: mcpsum import --client NAME",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}

	// The next command the listing names. A project config's commands do
	// not run without the user's decision (stdin here is no terminal).
	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "vscode", "--write")
	if code != 2 || !strings.Contains(stderr, "run the same command with --trust-project") || !strings.Contains(out, "lock   memory: "+bin.goMemory) {
		t.Fatalf("import --client vscode --write without --trust-project: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(vscode); string(b) != vsSrc {
		t.Fatal("a refused import changed the config")
	}
	if _, err := os.Stat(filepath.Join(proj, "mcp.lock")); err == nil {
		t.Fatal("a refused import wrote mcp.lock")
	}
	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "vscode", "--write", "--trust-project")
	if code != 0 {
		t.Fatalf("import --client vscode --write --trust-project: exit %d\n%s%s", code, out, stderr)
	}
	got, _ := os.ReadFile(vscode)
	want := strings.Replace(vsSrc, `"command": `+jsonStr(bin.goMemory)+`, /* go-sdk example */`,
		`"command": `+jsonStr(bin.mcpsum)+`, "args": ["proxy", "--lockfile", "${workspaceFolder}/mcp.lock", "--name", "memory"], /* go-sdk example */`, 1)
	if string(got) != want {
		t.Fatalf("project config:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(out, "skip   interp: its command line uses ${workspaceFolder}") {
		t.Errorf("no note for the interpolated entry:\n%s", out)
	}

	// ~/.claude.json: the user's servers and this project's, into the user
	// lock (its folder created); another project's servers are left out.
	userLock := filepath.Join(home, ".config", "mcpsum", "mcp.lock")
	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "claude-code", "--write")
	if code != 0 {
		t.Fatalf("import --client claude-code: exit %d\n%s%s", code, out, stderr)
	}
	got, _ = os.ReadFile(claudeJSON)
	for _, n := range []string{"seq", "seq3"} {
		if !strings.Contains(string(got), `"command": `+jsonStr(bin.mcpsum)+`, "args": ["proxy", "--lockfile", `+jsonStr(userLock)+`, "--name", "`+n+`"]`) {
			t.Errorf("%s not rewritten with absolute paths in ~/.claude.json:\n%s", n, got)
		}
	}
	leftCmd := "cd " + other + " && mcpsum import --client claude-code " + claudeJSON
	if !strings.Contains(out, "seq3 ["+proj+"]") || !strings.Contains(out, "left   seq2: servers of the project "+other) ||
		!strings.Contains(out, leftCmd) || strings.Contains(string(got), `"--name", "seq2"`) ||
		!strings.HasPrefix(string(got), `{"numStartups": 3, "mcpServers": {"seq": {"type": "stdio", "command": `) {
		t.Errorf("per-project entries or untouched prefix wrong:\n%s\n%s", out, got)
	}
	if fi, err := os.Stat(filepath.Dir(userLock)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("user lock folder: %v %v", fi, err)
	}
	// The command named for the other project's servers.
	out, stderr, code = mcpsum(t, other, env, "import", "--client", "claude-code", claudeJSON)
	if code != 0 || !strings.Contains(out, "lock   seq2 ["+other+"]") || !strings.Contains(out, "left   seq3") {
		t.Errorf("%s: exit %d\n%s%s", leftCmd, code, out, stderr)
	}

	out, stderr, code = mcpsum(t, proj, env, "import", "--client", "codex", "--write")
	if code != 0 {
		t.Fatalf("import --client codex: exit %d\n%s%s", code, out, stderr)
	}
	snippet := "[mcp_servers.mem]\ncommand = " + jsonStr(bin.mcpsum) + "\nargs = [\"proxy\", \"--lockfile\", " + jsonStr(userLock) + ", \"--name\", \"mem\"]\n"
	if !strings.Contains(out, "which mcpsum does not rewrite") || !strings.Contains(out, snippet) {
		t.Errorf("codex snippet missing:\n%s", out)
	}
	if b, _ := os.ReadFile(codex); string(b) != codexSrc {
		t.Errorf("the TOML file was changed")
	}

	// Everything is locked; the locks hold the env names only.
	out, _, code = mcpsum(t, proj, env, "verify", "--offline")
	if code != 0 || !strings.Contains(out, "1 server") {
		t.Errorf("verify --offline of the project lock: exit %d\n%s", code, out)
	}
	out, _, code = mcpsum(t, proj, env, "verify", "--offline", "--lockfile", userLock)
	if code != 0 || !strings.Contains(out, "3 servers") {
		t.Errorf("verify --offline of the user lock: exit %d\n%s", code, out)
	}
	lockBytes, _ := os.ReadFile(filepath.Join(proj, "mcp.lock"))
	if !strings.Contains(string(lockBytes), "\"API_KEY\",\n        \"MEMORY_FILE_PATH\"") || strings.Contains(string(lockBytes), "input:key") || strings.Contains(string(lockBytes), "never-in-the-lock") {
		t.Errorf("envPassthrough of memory is not env + envFile names:\n%s", lockBytes)
	}
}
