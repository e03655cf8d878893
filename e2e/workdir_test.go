package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeExe writes an executable script.
func writeExe(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A lock made in folder A means the same programs, in the same place, when
// verify and the proxy are started from folder B (issue 12.1, issue 13.4):
// the servers' working directory is the lockfile's folder and relative
// command paths are resolved against it. Folder B holds different scripts
// under the same names, which an old mcpsum ran. The server is gosrv with
// -desc-cwd: like figma-developer-mcp, it writes its working directory into
// a tool description.
func TestLockInOneFolderRunFromAnother(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		requirePeers(t, "node is not installed")
	}
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []struct{ dir, tag string }{{a, "A"}, {b, "B"}} {
		writeExe(t, filepath.Join(d.dir, "run.sh"), fmt.Sprintf("#!/bin/sh\nexec %s -desc-cwd -desc 'echo %s'\n", bin.gosrv, d.tag))
		writeExe(t, filepath.Join(d.dir, "server.sh"), fmt.Sprintf("exec %s -desc-cwd -desc 'script %s'\n", bin.gosrv, d.tag))
		writeExe(t, filepath.Join(d.dir, "server.js"), fmt.Sprintf(
			"require('child_process').spawnSync(%q, ['-desc-cwd', '-desc', 'node %s'], {stdio: 'inherit'});\n", bin.gosrv, d.tag))
	}
	servers := map[string][]string{
		"rel":  {"./run.sh"},            // a relative program
		"sh":   {"sh", "server.sh"},     // `python3 server.py` style: interpreter + relative script
		"node": {"node", "./server.js"}, // the same with node
	}
	for n, argv := range servers {
		mustLock(t, a, nil, append([]string{"--name", n, "--"}, argv...)...)
	}
	lock := filepath.Join(a, "mcp.lock")
	_, locked := readLock(t, a)
	if !strings.Contains(string(locked), "(files under "+a+")") || strings.Contains(string(locked), " B") {
		t.Fatalf("the lock does not hold A's servers run in A:\n%s", locked)
	}

	// verify from B, with the lockfile given by absolute and by relative path.
	rel, err := filepath.Rel(b, lock)
	if err != nil {
		t.Fatal(err)
	}
	for _, lf := range []string{lock, rel} {
		out, stderr, code := mcpsum(t, b, nil, "verify", "--lockfile", lf)
		if code != 0 {
			t.Fatalf("verify --lockfile %s from folder B: exit %d\n%s%s", lf, code, out, stderr)
		}
	}
	// lock from B re-locks byte-identically.
	mustLock(t, b, nil, "--lockfile", lock)
	if _, again := readLock(t, a); string(again) != string(locked) {
		t.Fatalf("re-lock from folder B changed the lock:\n%s\nwas:\n%s", again, locked)
	}
	// show from B names A's programs and A as the working directory.
	out, _, code := mcpsum(t, b, nil, "show", "--lockfile", lock)
	if code != 0 {
		t.Fatalf("show: exit %d\n%s", code, out)
	}
	for _, want := range []string{"program       " + filepath.Join(a, "run.sh"), "runs in       " + a} {
		if !strings.Contains(out, want) {
			t.Errorf("show does not print %q:\n%s", want, out)
		}
	}
	// The proxy started in B serves A's tools, and they answer.
	for n := range servers {
		cmd := exec.Command(bin.mcpsum, "proxy", "--lockfile", lock, "--name", n)
		cmd.Dir = b
		cs := goClient(t, cmd, "legacy", nil)
		for tool, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatalf("%s: list tools through the proxy started in B: %v", n, err)
			}
			if tool.Name == "echo" && (!strings.Contains(tool.Description, "under "+a+")") || strings.Contains(tool.Description, " B")) {
				t.Errorf("%s: echo description through the proxy is %q, want A's server run in A", n, tool.Description)
			}
		}
		if _, err := callJSON(t, cs, "echo", map[string]any{"text": "hi"}); err != nil {
			t.Errorf("%s: call through the proxy started in B: %v", n, err)
		}
		cs.Close()
	}
}
