package process

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const guardChildEnv = "MCPWIRE_GUARD_CHILD"

// Guard's sweep ends a stopped server's daemonised descendants, but only once
// no server runs: while server B runs, A's orphan (which could be B's as far
// as mcpsum can tell) is left alone and B is untouched; stopping B ends it.
// Run in a re-executed test binary, because Guard changes the whole process.
func TestGuardSweepsOnlyWhenNoServerRuns(t *testing.T) {
	if os.Getenv(guardChildEnv) != "" {
		guardChild(t)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuardSweepsOnlyWhenNoServerRuns$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), guardChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("guard child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestGuardSweepsOnlyWhenNoServerRuns") {
		t.Fatalf("guard child did not run the scenario:\n%s", out)
	}
	// Nothing of the scenario survives the child process either.
	b, _ := os.ReadFile(filepath.Join(dir, "daemon.pid"))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && syscall.Kill(pid, 0) == nil {
		t.Errorf("daemon %d still alive", pid)
	}
}

func guardChild(t *testing.T) {
	dir := os.Getenv(guardChildEnv)
	if err := Guard(); err != nil {
		t.Fatalf("Guard: %v", err)
	}
	pidFile := filepath.Join(dir, "daemon.pid")
	script := fmt.Sprintf("( setsid sh -c 'echo $$ > %s; exec sleep 300' & ); exec cat", pidFile)
	a, err := Start(Spec{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "exec cat"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	var daemon int
	for i := 0; i < 200 && daemon == 0; i++ {
		if b, err := os.ReadFile(pidFile); err == nil {
			daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if daemon == 0 {
		t.Fatal("the daemon did not start")
	}
	if err := a.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if ppid := parentOf(daemon); ppid != os.Getpid() {
		t.Fatalf("the daemon's parent is %d, want this subreaper %d", ppid, os.Getpid())
	}
	if syscall.Kill(daemon, 0) != nil {
		t.Fatal("the sweep ended an orphan while server B still runs")
	}
	select {
	case <-b.Done():
		t.Fatal("server B ended when A stopped")
	default:
	}
	if err := b.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(daemon, 0); err != syscall.ESRCH {
		t.Fatalf("the daemon %d is still there (or an unreaped zombie) after the last server stopped: %v", daemon, err)
	}
}

func parentOf(pid int) int {
	st, err := ReadStat(strconv.Itoa(pid))
	if err != nil {
		return -1
	}
	p, _ := strconv.Atoi(st.Field(4))
	return p
}

// A child started with StartKept (a package install mcpsum runs before a
// server) is no server's orphan: stopping the last server leaves it running
// (the sweep ended such an install mid-write, npx's cold install of the
// next server of a verify), and wait reaps it. Re-executed like the test
// above, because Guard changes the whole process.
func TestGuardKeepsKeptChild(t *testing.T) {
	if os.Getenv(guardChildEnv) != "" {
		keptChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuardKeepsKeptChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), guardChildEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestGuardKeepsKeptChild") {
		t.Fatalf("guard child: %v\n%s", err, out)
	}
}

func keptChild(t *testing.T) {
	if err := Guard(); err != nil {
		t.Fatalf("Guard: %v", err)
	}
	inst := exec.Command("/bin/sh", "-c", "read line; echo got $line")
	stdin, err := inst.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	inst.Stdout = &out
	wait, err := StartKept(inst)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(Spec{Argv: []string{"/bin/sh", "-c", "exec cat"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(inst.Process.Pid, 0); err != nil {
		t.Fatalf("the kept child was ended when the last server stopped: %v", err)
	}
	stdin.Write([]byte("done\n"))
	stdin.Close()
	if err := wait(); err != nil || out.String() != "got done\n" {
		t.Fatalf("kept child: %v, %q", err, out.String())
	}
}

// The kernel's lists of this process's children (ownChildren) name the
// same children as a scan of every process's stat, a zombie included.
func TestOwnChildrenMatchesScan(t *testing.T) {
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		zombie.Wait()
	})
	for { // until "true" exited (a zombie: not waited for yet)
		st, err := ReadStat(strconv.Itoa(zombie.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		if st.Field(3) == "Z" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	own, ok := ownChildren(nil)
	if !ok {
		t.Skip("this kernel keeps no /proc/self/task/TID/children")
	}
	scan := scanChildren(os.Getpid(), nil)
	slices.Sort(own)
	slices.Sort(scan)
	if !slices.Equal(own, scan) {
		t.Fatalf("ownChildren %v, scan of /proc %v", own, scan)
	}
	for _, c := range append(cmds, zombie) {
		if !slices.Contains(own, c.Process.Pid) {
			t.Errorf("child %d missing from %v", c.Process.Pid, own)
		}
	}
	skip := map[int]bool{cmds[0].Process.Pid: true}
	if got, _ := ownChildren(skip); slices.Contains(got, cmds[0].Process.Pid) {
		t.Errorf("skipped child %d listed: %v", cmds[0].Process.Pid, got)
	}
}
