//go:build unix

package process

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// Real servers for the tests (e2e/servers), built once per test binary into
// a temp dir, only when a test needs them.

var binDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "process-peers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// peer returns the path of e2e/servers/<name>, built.
func peer(t testing.TB, name string) string {
	t.Helper()
	return testbin.Build(t, filepath.Join(binDir, name), "github.com/mcpsum/mcpsum/e2e/servers/"+name)
}

// assertGroupGone checks kill(-pgid, 0) == ESRCH: nothing of the group is
// left, not even an unreaped zombie.
func assertGroupGone(t testing.TB, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	default:
		t.Errorf("process %d was not reaped", p.Pid())
		return
	}
	if err := syscall.Kill(-p.Pgid(), 0); err != syscall.ESRCH {
		t.Errorf("process group %d still exists (kill 0: %v)", p.Pgid(), err)
	}
}
