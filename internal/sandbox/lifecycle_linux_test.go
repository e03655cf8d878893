package sandbox

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

var shEnv = []string{"PATH=/usr/bin:/bin"}

func TestPrepareRefusals(t *testing.T) {
	requireSandbox(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	repo := t.TempDir()
	lock := filepath.Join(repo, "mcp.lock")
	os.WriteFile(lock, []byte("{}"), 0o644)
	os.Symlink(repo, filepath.Join(home, "work"))      // ~/work -> the lockfile's folder
	os.Symlink(lock, filepath.Join(home, "notes.txt")) // ~/notes.txt -> mcp.lock
	prot := []string{lock, repo}
	cases := []struct {
		cfg  Config
		argv []string
		want string
	}{
		{Config{Write: []string{"~/work"}, Protected: prot}, []string{"sh"}, "may not cover the protected path " + repo},
		{Config{Write: []string{"~/notes.txt"}, Protected: prot}, []string{"sh"}, "may not cover the protected path " + lock},
		{Config{Write: []string{"~/"}}, []string{"sh"}, "your home directory"},
		{Config{}, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem"}, "lock its installed entry point"},
		{Config{}, []string{"npm", "exec", "x"}, "lock its installed entry point"},
		{Config{NetworkAllow: []string{"example.com"}}, []string{"sh"}, `"example.com"`},
		{Config{NetworkAllow: []string{"example.com:443"}}, []string{"sh"}, "audit log"},
		{Config{NetworkAllow: []string{"example.com:443"}, NoNetwork: true}, []string{"sh"}, "no network"},
		{Config{}, []string{"no-such-binary-here"}, "not found in PATH"},
		{Config{Read: []string{"~/missing"}}, []string{"sh"}, "does not exist"},
	}
	for _, c := range cases {
		l, err := Prepare(c.cfg, c.argv, shEnv)
		if err == nil {
			l.Close()
			t.Errorf("%+v %q: accepted", c.cfg, c.argv)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %q: %v, want %q", c.cfg, c.argv, err, c.want)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(os.TempDir(), "mcpsum-"+strconv.Itoa(os.Geteuid())))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "sbx-"+strconv.Itoa(os.Getpid())+"-") {
			t.Errorf("a refused Prepare left %s behind", e.Name())
		}
	}
}

// TestSandboxBasics: the MCP pipes pass through, the exit status comes back.
func TestSandboxBasics(t *testing.T) {
	requireSandbox(t)
	l, err := Prepare(Config{Name: "basics"}, []string{"sh", "-c", `read x; echo "got $x in $(pwd) tmp=$TMPDIR"; ls / | tr '\n' ' '; exit 3`}, shEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out, stderr, err := run(t, l, "hello\n")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v, want status 3; stderr: %s", err, stderr)
	}
	got := string(out)
	if !strings.Contains(got, "got hello in ") || !strings.Contains(got, "tmp="+l.TmpDir) {
		t.Errorf("stdout %q", got)
	}
	if !strings.Contains(got, "ls: cannot open directory '/': Permission denied") && strings.Contains(got, "home") {
		t.Errorf("the view's root lists host folders: %q", got)
	}
}

// TestSetupFailure: a server that cannot start inside is reported by Ready.
func TestSetupFailure(t *testing.T) {
	requireSandbox(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "server")
	os.WriteFile(script, []byte("#!/opt/not-in-the-view/interp\n"), 0o755)
	l, err := Prepare(Config{Read: []string{dir}}, []string{script}, shEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, stderr, err := run(t, l, "")
	if err == nil || !strings.Contains(err.Error(), "cannot start") || !strings.Contains(stderr, "cannot start") {
		t.Fatalf("Ready/stderr should report the failed start: %v / %q", err, stderr)
	}
}

// startSandbox starts a long-running sandboxed shell command.
func startSandbox(t *testing.T, script string) (*Launch, *exec.Cmd) {
	t.Helper()
	l, err := Prepare(Config{Name: "long"}, []string{"sh", "-c", script}, shEnv)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(l.Argv[0], l.Argv[1:]...)
	cmd.Env, cmd.ExtraFiles, cmd.SysProcAttr = l.Env, l.ExtraFiles, l.SysProcAttr
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		l.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		l.Close()
	})
	if err := l.Ready(); err != nil {
		t.Fatal(err)
	}
	return l, cmd
}

// waitExit waits for cmd with a generous bound (a hang is the failure).
func waitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the sandbox did not exit")
		return nil
	}
}

// TestSignalForwarding: SIGTERM to the process group (mcpwire's Stop) reaches
// the server through pid 1.
func TestSignalForwarding(t *testing.T) {
	requireSandbox(t)
	_, cmd := startSandbox(t, `trap 'exit 7' TERM; sleep 300 & wait`)
	time.Sleep(50 * time.Millisecond) // let sh install its trap; not asserted on
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	err := waitExit(t, cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 && ee.ExitCode() != 143 {
		t.Fatalf("exit after SIGTERM: %v, want 7 (trap) or 143", err)
	}
}

// TestCloseEndsSandbox: Close cuts the lifeline; pid 1 ends the sandbox.
func TestCloseEndsSandbox(t *testing.T) {
	requireSandbox(t)
	l, cmd := startSandbox(t, `sleep 300`)
	tmp := l.TmpDir
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	waitExit(t, cmd)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("${TMP} left behind: %v", err)
	}
}

// TestParentDeath: SIGKILL of mcpsum leaves no sandboxed process behind.
func TestParentDeath(t *testing.T) {
	requireSandbox(t)
	self, _ := os.Executable()
	parent := exec.Command(self, parentArg)
	parent.Stderr = os.Stderr
	stdout, _ := parent.StdoutPipe()
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		parent.Wait()
		t.Fatalf("parent program: %v", err)
	}
	init, _ := strconv.Atoi(strings.TrimSpace(line))
	var pids []int
	deadline := time.Now().Add(20 * time.Second)
	for len(pids) < 3 && time.Now().Before(deadline) { // pid 1, sleep 301, sleep 300
		pids = descendants(init)
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) < 3 {
		t.Fatalf("sandbox processes: %v", pids)
	}
	parent.Process.Kill()
	parent.Wait()
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline.Add(10 * time.Second)) {
				t.Fatalf("pid %d survived its parent's death", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// descendants lists pid and every process below it (host pids).
func descendants(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(out[i]) + "/task/" + strconv.Itoa(out[i]) + "/children")
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// alive is true while pid exists and is not a zombie.
func alive(pid int) bool {
	st, err := process.ReadStat(strconv.Itoa(pid))
	return err == nil && st.Field(3) != "" && st.Field(3) != "Z"
}

func TestStatus(t *testing.T) {
	requireSandbox(t)
	r := Status()
	if !r.Available || r.LandlockABI < 3 || !r.UserNS || !r.Seccomp || !strings.HasPrefix(r.Probe, "ok") {
		t.Fatalf("Status on a capable machine: %+v", r)
	}
	s := r.String()
	for _, want := range []string{"namespaces+landlock+seccomp", "landlock:        ABI", "probe:           ok"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	t.Logf("\n%s", s)
}

func TestUsernsSysctls(t *testing.T) {
	sysctls := func(kv map[string]string) func(string) (string, bool) {
		return func(n string) (string, bool) { v, ok := kv[n]; return v, ok }
	}
	cases := []struct {
		euid  int
		kv    map[string]string
		label string
		want  string // "" = no problem
	}{
		{1000, map[string]string{"user/max_user_namespaces": "15000"}, "", ""},
		{1000, map[string]string{"user/max_user_namespaces": "0"}, "", "max_user_namespaces=15000"},
		{0, map[string]string{"user/max_user_namespaces": "0"}, "", "max_user_namespaces=15000"},
		{1000, map[string]string{"kernel/unprivileged_userns_clone": "0"}, "", "unprivileged_userns_clone=1"},
		{0, map[string]string{"kernel/unprivileged_userns_clone": "0"}, "", ""},
		{1000, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"}, "unconfined", "apparmor_parser -r /etc/apparmor.d/mcpsum"},
		{1000, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"}, "mcpsum (unconfined)", ""},
		{1000, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "0"}, "unconfined", ""},
		{0, map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"}, "unconfined", ""},
	}
	for _, c := range cases {
		err := usernsSysctls(c.euid, sysctls(c.kv), c.label, "/usr/local/bin/mcpsum")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want %q", c, err, c.want)
		}
	}
	fix := usernsSysctls(1000, sysctls(map[string]string{"kernel/apparmor_restrict_unprivileged_userns": "1"}), "unconfined", "/usr/local/bin/mcpsum").Fix
	for _, want := range []string{"abi <abi/4.0>,", "profile mcpsum /usr/local/bin/mcpsum flags=(unconfined) {", "userns,", "include if exists <local/mcpsum>"} {
		if !strings.Contains(fix, want) {
			t.Errorf("AppArmor fix lacks %q:\n%s", want, fix)
		}
	}
}
