//go:build unix

package process

import (
	"os"
	"syscall"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// Real servers for the tests (e2e/servers), built once per test binary into
// a temp dir, only when a test needs them.

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// peer returns the path of e2e/servers/<name>, built.
func peer(t testing.TB, name string) string {
	t.Helper()
	return testbin.Program(t, name, "github.com/mcpsum/mcpsum/e2e/servers/"+name)
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
