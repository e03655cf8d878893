package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Two branches re-lock the same server (its description changed on each)
// and one adds a server: git merges mcp.lock with conflict markers. Every
// command that reads the lock says so and names the fix; that command,
// `mcpsum lock`, run as printed, keeps the entry both sides agree on,
// re-locks the conflicted one from the live server (after the person
// resolved the server's own file) and writes the file whole. An entry whose
// command the sides disagree on is left for a person: nothing is written.
func TestLockResolvesAMergeConflict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil && args[0] != "merge" {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("srv.sh", "#!/bin/sh\nexec "+bin.gosrv+" -desc \"$(cat desc.txt)\"\n")
	write("desc.txt", "echo text\n")
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	mustLock(t, dir, nil, "--name", "other", "--", bin.gosrv, "-extra-tool", "other_tool")
	git("add", ".")
	git("commit", "-qm", "lock")

	git("checkout", "-qb", "feature")
	write("desc.txt", "echo the text back\n")
	mustLock(t, dir, nil, "--name", "srv")
	git("commit", "-qam", "srv: new description")

	git("checkout", "-q", "main")
	write("desc.txt", "echo text, unchanged\n")
	mustLock(t, dir, nil, "--name", "srv")
	mustLock(t, dir, nil, "--name", "third", "--", bin.gosrv, "-extra-tool", "third_tool")
	git("add", ".")
	git("commit", "-qm", "srv: another description; third")
	otherBefore := entryJSON(t, filepath.Join(dir, "mcp.lock"), "other")

	out := git("merge", "feature")
	if !strings.Contains(out, "CONFLICT (content): Merge conflict in mcp.lock") {
		t.Fatalf("the merge did not conflict in mcp.lock:\n%s", out)
	}
	write("desc.txt", "echo the text back\n") // the person resolves the server's own file

	_, stderr, code := mcpsum(t, dir, nil, "verify")
	fix := hintCommand(t, stderr, "resolve it with '")
	fix, _, _ = strings.Cut(fix, "'")
	if code != 3 || !strings.Contains(stderr, "merge conflict markers (line ") || fix != "mcpsum lock --lockfile mcp.lock" {
		t.Fatalf("verify of a conflicted lock: exit %d, fix %q\n%s", code, fix, stderr)
	}
	if _, stderr, code := mcpsum(t, dir, nil, strings.Fields(fix)[1:]...); code != 0 {
		t.Fatalf("%s: exit %d\n%s", fix, code, stderr)
	} else if !strings.Contains(stderr, "srv: the two sides of the merge conflict lock different surfaces; re-locking it") || strings.Contains(stderr, "other:") {
		t.Errorf("%s said:\n%s", fix, stderr)
	}
	resolved, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	if strings.Contains(string(resolved), "<<<<<<<") || !strings.Contains(string(resolved), "echo the text back") {
		t.Errorf("the resolved lock:\n%s", resolved)
	}
	if entryJSON(t, filepath.Join(dir, "mcp.lock"), "other") != otherBefore {
		t.Error("the entry both sides agree on was changed")
	}
	if _, stderr, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Errorf("verify after resolving: exit %d\n%s", code, stderr)
	}
	l, err := lockfile.Load(filepath.Join(dir, "mcp.lock"))
	if err != nil || len(l.Servers) != 3 {
		t.Fatalf("resolved lock: %v, %d servers", err, len(l.Servers))
	}

	// The sides disagree on srv's command: a person's choice.
	ours := strings.Replace(string(resolved), "\n        \"srv.sh\"\n",
		"\n<<<<<<< HEAD\n        \"srv2.sh\"\n=======\n        \"srv.sh\"\n>>>>>>> feature\n", 1)
	if ours == string(resolved) {
		t.Fatalf("no srv.sh line in\n%s", resolved)
	}
	write("mcp.lock", ours)
	_, stderr, code = mcpsum(t, dir, nil, "lock")
	if code == 0 || !strings.Contains(stderr, "give srv different targets") || !strings.Contains(stderr, "ours command sh srv2.sh, theirs command sh srv.sh") ||
		!strings.Contains(stderr, "hint: choose: in mcp.lock keep one side's version") {
		t.Errorf("lock with a command conflict: exit %d\n%s", code, stderr)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "mcp.lock")); string(now) != ours {
		t.Error("lock wrote a file whose command conflict a person must resolve")
	}
}

// entryJSON is the text of one server's entry in the lockfile at path.
func entryJSON(t *testing.T, path, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n    \""+name+"\": {\n")
	body, _, _ := strings.Cut(after, "\n    }")
	if !ok {
		t.Fatalf("no entry %s in %s", name, path)
	}
	return body
}
