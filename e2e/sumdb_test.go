package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mcpsum-log add starts each server as mcpsum verify does: one slow to
// write its first line (a first npx run, played by a FAKE npx on PATH that
// waits 3 s and then runs the go-sdk memory server) gets the start-up
// allowance (--start-timeout-secs, 60 s by default), not just the per-answer
// --timeout-secs. Before, add had no start allowance, so a server that took
// longer than 30 s to start on a loaded machine failed the add.
func TestLogAddStartAllowance(t *testing.T) {
	t.Parallel()
	dir, fakes := t.TempDir(), t.TempDir()
	// "--yes …" is mcpsum's install of the package (installing is not starting).
	must(t, os.WriteFile(filepath.Join(fakes, "npx"), []byte("#!/bin/sh\n# FAKE npx\n[ \"$1\" = --yes ] && exit 0\nsleep 3\nexec "+bin.goMemory+"\n"), 0o755))
	env := []string{"PATH=" + fakes + string(os.PathListSeparator) + os.Getenv("PATH"), "MCPSUMDB=off"}
	if _, se, code := mcpsum(t, dir, env, "lock", "--name", "mem", "--", "npx", "-y", memSpec); code != 0 {
		t.Fatalf("lock: exit %d\n%s", code, se)
	}
	logDir := filepath.Join(t.TempDir(), "log")
	if _, se, code := mcpsumLogEnv(t, dir, env, "init", "--dir", logDir, "--origin", "e2e.test/start"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, se)
	}
	if _, se, code := mcpsumLogEnv(t, dir, env, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--timeout-secs", "1", "--start-timeout-secs", "1"); code != 3 || !strings.Contains(se, "start-up allowance 1s") {
		t.Errorf("add with a 1 s start allowance of a server that needs 3 s: exit %d, want 3 naming the allowance\n%s", code, se)
	}
	if so, se, code := mcpsumLogEnv(t, dir, env, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--timeout-secs", "1"); code != 0 || !strings.Contains(so+se, "mem") {
		t.Errorf("add of a server that needs 3 s to start, 1 s per answer: exit %d, want 0\n%s%s", code, so, se)
	}
}
