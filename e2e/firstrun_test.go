package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `mcpsum proxy` started by hand in a terminal says on stderr that it waits
// for a client, and prints a command that tries it; that command, run as
// printed from another folder, lists the locked tools through the proxy.
func TestProxyInTerminalSaysHowToTryIt(t *testing.T) {
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "go-everything", "--", bin.goEvery)

	cmd := exec.Command(bin.mcpsum, "proxy", "--name", "go-everything")
	cmd.Dir = dir
	cmd.Stdin = openPTY(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// An old proxy says nothing and waits: give it 20 s.
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var hint []string
	try := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && try == "" {
		hint = append(hint, sc.Text())
		if l, ok := strings.CutPrefix(sc.Text(), "  printf "); ok {
			try = "printf " + l
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	go func() { _, _ = bufio.NewReader(stderr).WriteTo(new(bytes.Buffer)) }()
	cmd.Wait()
	text := strings.Join(hint, "\n")
	if !strings.Contains(text, `mcpsum proxy: serving go-everything from `+filepath.Join(dir, "mcp.lock")+`: waiting for an MCP client on stdin`) {
		t.Errorf("the proxy in a terminal does not say it waits for a client:\n%s", text)
	}
	if try == "" {
		t.Fatalf("no command to try it in:\n%s", text)
	}

	// The hint's commands, as printed, from elsewhere.
	run := exec.Command("sh", "-c", try)
	run.Dir = t.TempDir()
	run.Env = append(os.Environ(), "PATH="+filepath.Dir(bin.mcpsum)+":"+os.Getenv("PATH"))
	var out, errOut bytes.Buffer
	run.Stdout, run.Stderr = &out, &errOut
	if err := run.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", try, err, errOut.String())
	}
	if !strings.Contains(out.String(), `"id":2,"result":{"tools":[`) || !strings.Contains(out.String(), `"name":"greet"`) {
		t.Errorf("the hint's command did not list the locked tools:\n%s", out.String())
	}
	if strings.Contains(errOut.String(), "waiting for an MCP client") {
		t.Errorf("a proxy whose stdin is a pipe printed the terminal hint:\n%s", errOut.String())
	}
	// 'mcpsum import -h', which the hint names, works.
	if _, _, code := mcpsum(t, dir, nil, "import", "-h"); code != 0 {
		t.Errorf("mcpsum import -h: exit %d", code)
	}
}

// Ctrl-C while a server is being locked: lock says it was interrupted and
// that nothing was written, exits 3, and mcp.lock keeps its exact bytes.
func TestLockInterrupted(t *testing.T) {
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "go-everything", "--", bin.goEvery)
	before, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))

	// The "server" marks that it runs (in the lockfile's folder), then hangs.
	cmd := exec.Command(bin.mcpsum, "lock", "--name", "slow", "--", "sh", "-c", "touch started; exec sleep 60")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the server never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 {
		t.Errorf("lock after Ctrl-C: %v, want exit 3", err)
	}
	if want := "mcpsum: lock interrupted (interrupt signal received): nothing was written, mcp.lock is as it was"; !strings.Contains(stderr.String(), want) {
		t.Errorf("lock after Ctrl-C does not say %q:\n%s", want, stderr.String())
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "mcp.lock")); !bytes.Equal(before, after) {
		t.Errorf("mcp.lock changed after an interrupted lock")
	}
}
