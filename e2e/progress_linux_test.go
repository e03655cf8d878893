package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Long steps show progress on a terminal: while a server has not answered
// yet (a cold npx download; here a server that waits 2 s) the status line
// says so, and a 1,000-tool server's pages are counted as they come. The
// same lock with stderr on a pipe prints no status line.
func TestLockProgressOnATerminal(t *testing.T) {
	t.Parallel()
	_, _, bigsrv := benchBins(t)
	dir := t.TempDir()
	lockOnPTY := func(env []string, args ...string) string {
		t.Helper()
		master, slave := openPty(t)
		cmd := exec.Command(bin.mcpsum, append([]string{"lock"}, args...)...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
		cmd.Stderr, cmd.Stdout = slave, io.Discard
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { io.Copy(&out, master); close(done) }()
		err := cmd.Run()
		slave.Close()
		master.Close() // ends the copy (Linux gives EIO once the slave is gone)
		<-done
		if err != nil {
			t.Fatalf("lock %v: %v\n%s", args, err, out.String())
		}
		return out.String()
	}
	out := lockOnPTY([]string{"GOSRV_START_DELAY=2s"}, "--name", "slow", "--env", "GOSRV_START_DELAY", "--", bin.gosrv)
	if !strings.Contains(out, "slow: starting; no answer yet (a first npx or uvx run downloads its package)") {
		t.Errorf("a slow start showed no progress:\n%q", out)
	}
	out = lockOnPTY(nil, "--name", "big", "--", bigsrv, "-tools", "1000", "-pagesize", "100")
	if !strings.Contains(out, "big: listing tools: 100 so far") || !strings.Contains(out, "1000 tools") {
		t.Errorf("a 1,000-tool lock showed no count of its pages:\n%q", out)
	}
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--name", "big")
	if code != 0 || strings.Contains(stderr, "so far") || strings.Contains(stderr, "\x1b[K") {
		t.Errorf("lock with stderr on a pipe: exit %d, status lines in\n%q", code, stderr)
	}
}
