package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server that never writes a line (npx stuck on an unreachable registry,
// played by a shell script) fails lock and verify after the start-up
// allowance with exit 3, and the report shows its last stderr lines,
// escaped. The allowance has its own flag and MCPSUM_ twin.
func TestNeverSpokeReportsStderr(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf 'npm error code ETIMEDOUT\\n\\033[2Jnpm error network request failed\\n' >&2\nexec sleep 30\n"
	if err := os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--start-timeout-secs", "2", "--timeout-secs", "1", "--name", "srv", "--", "sh", "srv.sh")
	took := time.Since(start)
	if code != 3 {
		t.Fatalf("lock: exit %d, want 3\n%s", code, stderr)
	}
	for _, want := range []string{"npm error code ETIMEDOUT", `\u001b[2Jnpm error network request failed`, "written nothing on stdout", "start-up allowance 2s"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("lock's report lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "\x1b") {
		t.Errorf("raw ESC in lock's report")
	}
	if took > 15*time.Second {
		t.Errorf("lock took %s with a 2 s start allowance and 1 s answers", took)
	}

	// verify, with the allowance from the environment twin.
	serverScript(t, dir)
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	if err := os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := mcpsum(t, dir, []string{"MCPSUM_START_TIMEOUT_SECS=1", "MCPSUM_TIMEOUT_SECS=1"}, "verify")
	if code != 3 || !strings.Contains(out, "npm error code ETIMEDOUT") || !strings.Contains(out, "start-up allowance 1s") {
		t.Errorf("verify: exit %d, want 3 with the server's stderr and the allowance\n%s", code, out)
	}
	if _, stderr, code := mcpsum(t, dir, nil, "verify", "--start-timeout-secs", "0"); code != 2 || !strings.Contains(stderr, "--start-timeout-secs must be positive") {
		t.Errorf("verify --start-timeout-secs 0: exit %d\n%s", code, stderr)
	}
}
