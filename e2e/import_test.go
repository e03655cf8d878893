package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// claudeConfig is a Claude Desktop config of two real servers (the pinned
// npm installs of server-memory and server-sequential-thinking), a remote
// entry and fields mcpsum must leave alone.
func claudeConfig(t *testing.T, memFile string) string {
	return `{
  "mcpServers": {
    "memory": {
      "command": "node",
      "args": [` + jsonStr(npmServer(t, "server-memory")) + `],
      "env": {"MEMORY_FILE_PATH": ` + jsonStr(memFile) + `}
    },
    "thinking": {"command": "node", "args": [` + jsonStr(npmServer(t, "server-sequential-thinking")) + `], "x-note": "kept"},
    "remote": {"url": "https://mcp.example.com/mcp?token=SECRET-TOKEN"}
  },
  "globalShortcut": "Ctrl+Space"
}
`
}

// fakeHome is a fresh HOME with its config and state folders, as the
// environment of an mcpsum run: import keeps the record of its backups in
// the state folder, never in the user's own.
func fakeHome(t *testing.T) (string, []string) {
	home := t.TempDir()
	return home, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
}

func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The e2e: import a Claude-style config of two real servers, look at
// the proposed change, write it, then start a real go-sdk client from the
// rewritten config's command, args and env, and talk to both servers through
// the proxy. Running import again changes nothing; undo restores the file.
func TestImportRewriteThenProxy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cfgPath := filepath.Join(dir, "claude_desktop_config.json")
	original := claudeConfig(t, memFile)
	if err := os.WriteFile(cfgPath, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "mcp.lock")
	_, env := fakeHome(t)

	// Default: show the plan and the change; write nothing, start nothing.
	out, stderr, code := mcpsum(t, dir, env, "import", "--lockfile", lock, cfgPath)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{
		"lock   memory: node ", "(env passed through: MEMORY_FILE_PATH)", "lock   thinking: node ",
		"skip   remote: https://mcp.example.com: its URL has a query (?…), which may carry a credential",
		"- \"command\": \"node\"", "+ \"command\": " + jsonStr(bin.mcpsum) + `, "args": ["proxy", "--lockfile", ` + jsonStr(lock) + `, "--name", "memory"]`,
		"nothing was written and no server was started; to apply: run the same command with --write",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+stderr, "SECRET-TOKEN") || strings.Contains(out+stderr, memFile) {
		t.Errorf("a value from the config was printed:\n%s\n%s", out, stderr)
	}
	if b, _ := os.ReadFile(cfgPath); string(b) != original {
		t.Fatalf("import without --write changed the config")
	}
	if _, err := os.Stat(lock); err == nil {
		t.Fatalf("import without --write wrote %s", lock)
	}

	// The next command the output names: the same with --write.
	out, stderr, code = mcpsum(t, dir, env, "import", "--lockfile", lock, "--write", cfgPath)
	if code != 0 || !strings.Contains(out, "wrote ") || !strings.Contains(out, "mcpsum import --undo "+cfgPath) {
		t.Fatalf("import --write: exit %d\n%s\n%s", code, out, stderr)
	}
	_, lockBytes := readLock(t, dir)
	var envs struct {
		Servers map[string]struct {
			EnvPassthrough []string `json:"envPassthrough"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(lockBytes, &envs); err != nil {
		t.Fatal(err)
	}
	if got := envs.Servers["memory"].EnvPassthrough; len(got) != 1 || got[0] != "MEMORY_FILE_PATH" {
		t.Errorf("memory envPassthrough = %q", got)
	}
	if bytes.Contains(lockBytes, []byte(memFile)) {
		t.Errorf("the env value reached mcp.lock")
	}

	rewritten, _ := os.ReadFile(cfgPath)
	// Everything but command and args is byte for byte the original.
	want := original
	for _, name := range []string{"memory", "thinking"} {
		srv := npmServer(t, "server-"+map[string]string{"memory": "memory", "thinking": "sequential-thinking"}[name])
		want = strings.Replace(want, `"command": "node",
      "args": [`+jsonStr(srv)+`]`, `"command": `+jsonStr(bin.mcpsum)+`,
      "args": ["proxy", "--lockfile", `+jsonStr(lock)+`, "--name", "memory"]`, 1)
		want = strings.Replace(want, `"command": "node", "args": [`+jsonStr(srv)+`]`,
			`"command": `+jsonStr(bin.mcpsum)+`, "args": ["proxy", "--lockfile", `+jsonStr(lock)+`, "--name", "thinking"]`, 1)
	}
	if string(rewritten) != want {
		t.Fatalf("rewritten config:\n%s\nwant:\n%s", rewritten, want)
	}

	// Idempotent: a second run recognises the wrapped entries.
	out, _, code = mcpsum(t, dir, env, "import", "--lockfile", lock, "--write", cfgPath)
	if code != 0 || !strings.Contains(out, "already runs mcpsum proxy") || !strings.Contains(out, "nothing to import") {
		t.Fatalf("second import: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(cfgPath); !bytes.Equal(b, rewritten) {
		t.Fatal("a second import changed the config")
	}

	// A real client, started exactly as Claude Desktop would from the file.
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(rewritten, &cfg); err != nil {
		t.Fatal(err)
	}
	client := func(name string) *mcp.ClientSession {
		e := cfg.MCPServers[name]
		cmd := exec.Command(e.Command, e.Args...)
		cmd.Dir = t.TempDir() // a client's working directory is not the lock's
		cmd.Env = os.Environ()
		for k, v := range e.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		return goClient(t, cmd, "legacy", nil)
	}
	mem := client("memory")
	if _, err := callJSON(t, mem, "create_entities", map[string]any{
		"entities": []map[string]any{{"name": "mcpsum", "entityType": "tool", "observations": []string{"imported"}}},
	}); err != nil {
		t.Fatal(err)
	}
	graph, err := callJSON(t, mem, "read_graph", map[string]any{})
	if err != nil || !strings.Contains(graph, "imported") {
		t.Fatalf("read_graph = %s, %v", graph, err)
	}
	if b, err := os.ReadFile(memFile); err != nil || !bytes.Contains(b, []byte("imported")) {
		t.Errorf("MEMORY_FILE_PATH from the config did not reach the server through the proxy: %v %q", err, b)
	}
	think := client("thinking")
	res, err := callJSON(t, think, "sequentialthinking", map[string]any{
		"thought": "import works", "nextThoughtNeeded": false, "thoughtNumber": 1, "totalThoughts": 1,
	})
	if err != nil || !strings.Contains(res, "thoughtNumber") {
		t.Fatalf("sequentialthinking = %s, %v", res, err)
	}

	// The undo command the output named restores the original bytes.
	out, stderr, code = mcpsum(t, dir, env, "import", "--undo", cfgPath)
	if code != 0 || !strings.HasPrefix(out, "restored ") {
		t.Fatalf("undo: exit %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(cfgPath); string(b) != original {
		t.Fatalf("undo left:\n%s", b)
	}
}

// Unpinned packages: the warning gives the pinned spelling and the package
// manager's command for the version; --resolve-versions runs exactly that
// command and says what it answered. CI has no registry, so npx and npm here
// are FAKES on PATH: fake npx runs the go-sdk memory server, fake npm logs
// its arguments and answers as `npm view --json` does.
func TestImportUnpinnedWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fakes := t.TempDir()
	logFile := filepath.Join(dir, "npm-args")
	os.WriteFile(filepath.Join(fakes, "npx"), []byte("#!/bin/sh\n# FAKE npx\nexec "+bin.goMemory+"\n"), 0o755)
	os.WriteFile(filepath.Join(fakes, "npm"), []byte("#!/bin/sh\n# FAKE npm\necho \"$*\" >> "+logFile+"\necho '\"2026.8.31\"'\n"), 0o755)
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"mem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@latest"]}}}`), 0o644)
	_, env := fakeHome(t)
	env = append(env, "PATH="+fakes+":"+os.Getenv("PATH"))

	out, stderr, code := mcpsum(t, dir, env, "import", cfg)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"warn   mem: @modelcontextprotocol/server-memory@latest is not pinned to a version",
		"pin it: write @modelcontextprotocol/server-memory@VERSION in the client config, with VERSION from: npm view @modelcontextprotocol/server-memory@latest version",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(logFile); err == nil {
		t.Fatal("npm was run without --resolve-versions")
	}
	out, _, code = mcpsum(t, dir, env, "import", "--write", "--resolve-versions", cfg)
	if code != 0 || !strings.Contains(out, "pin it: write @modelcontextprotocol/server-memory@2026.8.31 in the client config (npm view @modelcontextprotocol/server-memory@latest version answered 2026.8.31 just now), i.e. run npx -y @modelcontextprotocol/server-memory@2026.8.31") {
		t.Fatalf("--resolve-versions: exit %d\n%s", code, out)
	}
	if args, _ := os.ReadFile(logFile); string(args) != "view @modelcontextprotocol/server-memory@latest version --json\n" {
		t.Errorf("npm ran with %q", args)
	}
	// The lock keeps the command as written: nothing is pinned behind the user's back.
	lock, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	if !strings.Contains(string(lock), `"@modelcontextprotocol/server-memory@latest"`) {
		t.Errorf("the locked command changed")
	}
}

// import starts servers exactly as lock does: a server that is slow to
// write its first line (a first npx run downloading the package, played by
// a script that sleeps before it starts the real go-sdk memory server) gets
// the start-up allowance, not just --timeout-secs, and lock's notes (a list
// advertised but answered with method-not-found) are printed for it too.
func TestImportStartAllowanceAndNotes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sh")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 2\nexec "+bin.goMemory+"\n"), 0o755)
	hostileScript(t, dir, "notemplates")
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	os.WriteFile(cfg, []byte(`{"mcpServers": {"slow": {"command": "sh", "args": ["`+slow+`"]}, "srv": {"command": "sh", "args": ["srv.sh"]}}}`), 0o644)

	_, env := fakeHome(t)
	out, stderr, code := mcpsum(t, dir, env, "import", "--write", "--timeout-secs", "1", cfg)
	if code != 0 {
		t.Fatalf("import of a server that needs 2 s to start, with 1 s per answer: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "import: note: srv: resources/templates/list answered -32601 (method not found)") {
		t.Errorf("import does not pass on lock's note:\n%s", stderr)
	}
	os.Remove(filepath.Join(dir, "mcp.lock"))
	os.WriteFile(cfg, []byte(`{"mcpServers": {"slow": {"command": "sh", "args": ["`+slow+`"]}, "srv": {"command": "sh", "args": ["srv.sh"]}}}`), 0o644)
	out, stderr, code = mcpsum(t, dir, append(env, "MCPSUM_START_TIMEOUT_SECS=1"), "import", "--write", "--timeout-secs", "1", cfg)
	if code != 3 || !strings.Contains(stderr, "start-up allowance 1s") {
		t.Errorf("import with a 1 s start-up allowance: exit %d, want 3 naming the allowance\n%s%s", code, out, stderr)
	}
}
