//go:build unix

package process

//lint:file-ignore SA1019 runtime.GOROOT locates the toolchain that built the test, to build peers with it

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
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

var (
	buildMu  sync.Mutex
	built    = map[string]bool{}
	buildErr = map[string]error{}
)

// peer returns the path of e2e/servers/<name>, built.
func peer(t testing.TB, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	out := filepath.Join(binDir, name)
	if !built[name] {
		built[name] = true
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		pkg := "github.com/mcpsum/mcpsum/e2e/servers/" + name
		if b, err := exec.Command(goBin, "build", "-o", out, pkg).CombinedOutput(); err != nil {
			buildErr[name] = fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	if err := buildErr[name]; err != nil {
		t.Fatal(err)
	}
	return out
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
