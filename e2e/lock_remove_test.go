package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One dead server does not block re-locking the others: they are written,
// the dead one keeps its entry, lock exits 3 naming it and the two next
// commands, and the one that removes it works.
func TestRelockPastADeadServerThenRemoveIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("a.sh", "exec "+bin.goMemory)
	script("b.sh", "exec "+bin.goSeq)
	for _, n := range []string{"a", "b"} {
		if out, stderr, code := mcpsum(t, dir, nil, "lock", "--name", n, "--", "sh", n+".sh"); code != 0 {
			t.Fatalf("lock %s: exit %d\n%s%s", n, code, out, stderr)
		}
	}
	// a now runs another server (its surface changes); b is dead.
	script("a.sh", "exec "+bin.goSeq)
	script("b.sh", "echo 'b: cannot start' >&2; exit 1")
	before, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	_, stderr, code := mcpsum(t, dir, nil, "lock")
	if code != 3 || !strings.Contains(stderr, "lock failed for b (see above)") ||
		!strings.Contains(stderr, "mcpsum lock --lockfile mcp.lock --name b") || !strings.Contains(stderr, "mcpsum lock --lockfile mcp.lock --remove b") {
		t.Fatalf("re-lock with a dead server: exit %d, want 3 naming it\n%s", code, stderr)
	}
	f, after := readLock(t, dir)
	if string(after) == string(before) {
		t.Fatal("the server that locked was not written")
	}
	if a, b := f.Servers["a"].Command, f.Servers["b"].Command; len(a) != 2 || len(b) != 2 {
		t.Fatalf("entries: %v", f.Servers)
	}
	if len(f.Servers["a"].Tools) != len(f.Servers["b"].Tools) {
		t.Errorf("a should now hold the sequential-thinking server's tools (as b's old entry does): a %d tools, b %d tools", len(f.Servers["a"].Tools), len(f.Servers["b"].Tools))
	}
	// The two commands the error names: re-lock b once it starts again ...
	script("b.sh", "exec "+bin.goSeq)
	if _, stderr, code := mcpsum(t, dir, nil, "lock", "--lockfile", "mcp.lock", "--name", "b"); code != 0 {
		t.Fatalf("lock --name b once it starts: exit %d\n%s", code, stderr)
	}
	// ... or remove it.
	_, stderr, code = mcpsum(t, dir, nil, "lock", "--lockfile", "mcp.lock", "--remove", "b")
	if code != 0 || !strings.Contains(stderr, "lock: removed b from mcp.lock") {
		t.Fatalf("lock --remove b: exit %d\n%s", code, stderr)
	}
	f, _ = readLock(t, dir)
	if _, ok := f.Servers["b"]; ok || len(f.Servers) != 1 {
		t.Fatalf("after --remove: %v", f.Servers)
	}
	if out, stderr, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Fatalf("verify after the removal: exit %d\n%s%s", code, out, stderr)
	}
	_, stderr, code = mcpsum(t, dir, nil, "lock", "--remove", "b")
	if code != 2 || !strings.Contains(stderr, "no server b in mcp.lock (locked: a)") {
		t.Errorf("removing a missing entry: exit %d\n%s", code, stderr)
	}
	_, stderr, code = mcpsum(t, dir, nil, "lock", "--remove", "a", "--name", "a")
	if code != 2 || !strings.Contains(stderr, "--remove takes only the entry's name") {
		t.Errorf("--remove with --name: exit %d\n%s", code, stderr)
	}
}

// `lock --name N` without a command, for an N the lock does not hold, is
// most often a new server whose command was left out: the error lists the
// locked names and the hint is the command that locks N; run as printed,
// with the server's command for COMMAND, it locks it.
func TestRelockOfAnUnlockedNameHintsTheLockCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, stderr, code := mcpsum(t, dir, nil, "lock", "--name", "a", "--", bin.goSeq); code != 0 {
		t.Fatalf("lock a: exit %d\n%s", code, stderr)
	}
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--name", "b")
	if code != 2 || !strings.Contains(stderr, "no server b in mcp.lock (locked: a)") {
		t.Fatalf("lock --name b without a command: exit %d, want 2\n%s", code, stderr)
	}
	next := hintCommand(t, stderr, "give its command after --: ")
	next, _, _ = strings.Cut(strings.Trim(next, "'"), "' (")
	args := strings.Fields(strings.Replace(next, "COMMAND [ARG]...", bin.goSeq, 1))
	if len(args) < 2 || args[0] != "mcpsum" {
		t.Fatalf("want an mcpsum command in the hint:\n%s", stderr)
	}
	if _, stderr, code := mcpsum(t, dir, nil, args[1:]...); code != 0 {
		t.Fatalf("the suggested %q: exit %d\n%s", next, code, stderr)
	}
	if f, _ := readLock(t, dir); len(f.Servers["b"].Command) == 0 {
		t.Fatalf("the suggested %q did not lock b", next)
	}
}

// A lockfile named in a folder that does not exist: verify's hint creates
// the folder before the lock (lock runs its servers in the lockfile's
// folder, so it cannot lock there first), and lock itself says to create
// it. Both hints are run.
func TestLockfileInAMissingFolderHintsMkdir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--lockfile", "team/mcp.lock", "--name", "s", "--", bin.goSeq)
	if code != 3 || !strings.Contains(stderr, `the lockfile's folder "`+filepath.Join(dir, "team")+`" does not exist`) || strings.Contains(stderr, `server "s": server "s"`) {
		t.Fatalf("lock into a missing folder: exit %d, want 3 naming the folder once\n%s", code, stderr)
	}
	if mk := hintCommand(t, stderr, "create it first: "); mk != "mkdir -p "+filepath.Join(dir, "team") {
		t.Fatalf("lock's hint %q", mk)
	}
	_, stderr, code = mcpsum(t, dir, nil, "verify", "--lockfile", "team/mcp.lock")
	if code != 3 {
		t.Fatalf("verify of a lockfile in a missing folder: exit %d, want 3\n%s", code, stderr)
	}
	next := hintCommand(t, stderr, "create one with ")
	next, _, _ = strings.Cut(next, " (or pass --lockfile)")
	mkdir, lock, ok := strings.Cut(next, " && ")
	if !ok || mkdir != "mkdir -p team" {
		t.Fatalf("verify's hint %q does not create the folder first", next)
	}
	if out, err := exec.Command("sh", "-c", "cd "+dir+" && "+mkdir).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mkdir, err, out)
	}
	args := strings.Fields(strings.NewReplacer("COMMAND [ARG]...", bin.goSeq, "NAME", "s").Replace(lock))
	if _, stderr, code := mcpsum(t, dir, nil, args[1:]...); code != 0 {
		t.Fatalf("the suggested %q: exit %d\n%s", lock, code, stderr)
	}
	if _, stderr, code := mcpsum(t, dir, nil, "verify", "--lockfile", "team/mcp.lock"); code != 0 {
		t.Fatalf("verify after the hints: exit %d\n%s", code, stderr)
	}
}
