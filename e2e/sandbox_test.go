package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// setPolicy writes a policy into an entry of dir/mcp.lock. The policy is the
// user's, outside the digests, so editing it keeps the file valid.
func setPolicy(t *testing.T, dir, name string, policy any) {
	t.Helper()
	path := filepath.Join(dir, "mcp.lock")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	f["servers"].(map[string]any)[name].(map[string]any)["policy"] = policy
	out, _ := json.MarshalIndent(f, "", "  ")
	if err := os.WriteFile(path, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A server with policy.sandbox runs confined whenever mcpsum starts it: lock
// and verify included. Policies the sandbox cannot honour keep it from
// starting (exit 3).
func TestSandboxedLockAndVerify(t *testing.T) {
	t.Parallel()
	if out, _, code := mcpsum(t, t.TempDir(), nil, "doctor"); code != 0 {
		requirePeers(t, "this machine cannot run the sandbox:\n"+out)
	}
	dir := t.TempDir()
	served := filepath.Join(dir, "served")
	if err := os.Mkdir(served, 0o755); err != nil {
		t.Fatal(err)
	}
	entry := npmServer(t, "server-filesystem")
	pkgDir := filepath.Dir(filepath.Dir(filepath.Dir(entry))) // e2e/node_modules/@modelcontextprotocol
	mustLock(t, dir, nil, "--name", "fs", "--", "node", entry, served)
	sandbox := func(write ...string) map[string]any {
		return map[string]any{"sandbox": map[string]any{
			"filesystem": map[string]any{"read": []string{filepath.Dir(pkgDir)}, "write": write},
			"network":    map[string]any{"allow": []string{}},
		}}
	}
	setPolicy(t, dir, "fs", sandbox(served))
	if out, errOut, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Fatalf("sandboxed verify: exit %d\n%s%s", code, out, errOut)
	}
	stderr := mustLock(t, dir, nil) // re-lock runs sandboxed and keeps the policy
	if !strings.Contains(stderr, "fs  ok") {
		t.Errorf("re-lock progress: %s", stderr)
	}
	if out, _, _ := mcpsum(t, dir, nil, "show"); !strings.Contains(out, "sandbox write "+served) {
		t.Errorf("re-lock lost the sandbox policy:\n%s", out)
	}

	// A write path that covers the lockfile's folder, also through a symlink.
	setPolicy(t, dir, "fs", sandbox(dir))
	out, _, code := mcpsum(t, dir, nil, "verify")
	if code != 3 || !strings.Contains(out, "protected path") {
		t.Errorf("write path over the lockfile: exit %d\n%s", code, out)
	}
	link := filepath.Join(t.TempDir(), "innocent")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	setPolicy(t, dir, "fs", sandbox(link))
	out, _, code = mcpsum(t, dir, nil, "verify")
	if code != 3 || !strings.Contains(out, "resolves to") {
		t.Errorf("symlinked write path over the lockfile: exit %d\n%s", code, out)
	}
	// A path that does not exist.
	setPolicy(t, dir, "fs", sandbox(filepath.Join(dir, "nope")))
	if out, _, code = mcpsum(t, dir, nil, "verify"); code != 3 {
		t.Errorf("missing write path: exit %d\n%s", code, out)
	}
}

// npx cannot run inside a sandbox: the error says to lock the installed
// entry point instead. Replacing the command of an entry keeps its policy, so
// the new command is locked sandboxed and refused before anything runs.
func TestSandboxRefusesNpx(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "srv", "--", bin.gosrv)
	setPolicy(t, dir, "srv", map[string]any{"sandbox": map[string]any{"network": map[string]any{"allow": []string{}}}})
	before, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--name", "srv", "--", "npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31")
	if code != 3 || !strings.Contains(stderr, "entry point") {
		t.Errorf("sandboxed npx: exit %d, want 3 and advice to lock the entry point\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "mcp.lock")); string(after) != string(before) {
		t.Errorf("the refused lock changed mcp.lock")
	}
}

// The real filesystem server works through `mcpsum proxy` under a sandbox
// that allows one folder, and cannot read outside it even where its own
// allowlist (its command-line directories) would let it.
func TestProxySandboxedFilesystemServer(t *testing.T) {
	t.Parallel()
	if out, _, code := mcpsum(t, t.TempDir(), nil, "doctor"); code != 0 {
		requirePeers(t, "this machine cannot run the sandbox:\n"+out)
	}
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	outside := t.TempDir() // served by the server, not allowed by the sandbox
	if err := os.Mkdir(allowed, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(allowed, "notes.txt"), []byte("inside the sandbox"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("must not leak"), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := npmServer(t, "server-filesystem")
	nodeModules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(entry))))
	mustLock(t, dir, nil, "--name", "fs", "--", "node", entry, allowed, outside)
	setPolicy(t, dir, "fs", map[string]any{"sandbox": map[string]any{
		"filesystem": map[string]any{"read": []string{nodeModules}, "write": []string{allowed}},
		"network":    map[string]any{"allow": []string{}},
	}})

	cs := goClient(t, proxyCmd(dir, "fs"), "legacy", nil)
	got, err := callJSON(t, cs, "read_text_file", map[string]any{"path": filepath.Join(allowed, "notes.txt")})
	if err != nil || !strings.Contains(got, "inside the sandbox") {
		t.Fatalf("reading the allowed folder through the sandboxed proxy: %v %s", err, got)
	}
	got, err = callJSON(t, cs, "read_text_file", map[string]any{"path": filepath.Join(outside, "secret.txt")})
	if err == nil && (strings.Contains(got, "must not leak") || !strings.Contains(got, `"isError":true`)) {
		t.Fatalf("the sandboxed server read outside its policy: %s", got)
	}
	got, err = callJSON(t, cs, "write_file", map[string]any{"path": filepath.Join(allowed, "new.txt"), "content": "written"})
	if err != nil || strings.Contains(got, `"isError":true`) {
		t.Fatalf("writing inside the write path: %v %s", err, got)
	}
	if b, _ := os.ReadFile(filepath.Join(allowed, "new.txt")); string(b) != "written" {
		t.Errorf("the write did not land on the host: %q", b)
	}
}

// Sandboxed, a server runs in its private ${TMP} when the policy does not
// make the lockfile's folder visible: show says so and warns about the
// relative paths of its command (which then do not resolve), a failure names
// the locked program (not the sandbox's re-exec of mcpsum), and with the
// folder in filesystem.read the server runs in the lockfile's folder again.
func TestSandboxedWorkDir(t *testing.T) {
	t.Parallel()
	if out, _, code := mcpsum(t, t.TempDir(), nil, "doctor"); code != 0 {
		requirePeers(t, "this machine cannot run the sandbox:\n"+out)
	}
	dir := t.TempDir()
	entry := npmServer(t, "server-memory")
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(entry)))) // e2e/node_modules
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	rel := "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
	mustLock(t, dir, []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "m.jsonl")}, "--name", "mem", "--", "node", rel)
	policy := func(read ...string) map[string]any {
		return map[string]any{"sandbox": map[string]any{
			"filesystem": map[string]any{"read": read},
			"network":    map[string]any{"allow": []string{}},
		}}
	}
	setPolicy(t, dir, "mem", policy(modules))
	out, _, _ := mcpsum(t, dir, nil, "show")
	for _, want := range []string{
		"runs in       its sandbox's private ${TMP} (the lockfile's folder " + dir + " is not in the sandbox's view)",
		`warning: sandboxed, the server runs in its private ${TMP}, not in the lockfile's folder ` + dir + `, which its policy does not make visible: the relative paths "` + rel + `"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	out, _, code := mcpsum(t, dir, nil, "verify")
	if code != 3 || !strings.Contains(out, `server "node" exited`) || strings.Contains(out, "/proc/self/exe") {
		t.Errorf("verify: exit %d, want 3 naming the locked program\n%s", code, out)
	}

	setPolicy(t, dir, "mem", policy(modules, dir))
	if out, errOut, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Errorf("verify with the lockfile's folder in view: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := mcpsum(t, dir, nil, "show"); !strings.Contains(out, "runs in       "+dir+" (the lockfile's folder)") || strings.Contains(out, "runs in       its sandbox") || strings.Contains(out, "warning: sandboxed") {
		t.Errorf("show with the folder in view:\n%s", out)
	}
}
