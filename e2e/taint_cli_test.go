package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// taintCLI runs mcpsum with args; with tty, stdin is a pseudo-terminal
// (stdout and stderr stay pipes, so the output is exact).
func taintCLI(t *testing.T, env []string, tty bool, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin.mcpsum, args...)
	cmd.Env = env
	if tty {
		cmd.Stdin = openPTY(t)
	} else {
		cmd.Stdin = strings.NewReader("")
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// The refusal's two commands, run exactly as it prints them: from a
// terminal they list the session (this test process, live, what tainted it
// and when) and clear it; without a terminal they refuse (exit 1), so a
// model driving a shell tool cannot clear its own taint.
func TestTaintListResetFromTerminal(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	_, env := taintState(t)
	p := startRaw(t, taintProxy(dir, "goe", env))
	p.initialize()
	taintByResource(p, "1")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a"}}}`)
	refusal := string(p.await("2")["result"])
	m := resetCmd.FindStringSubmatch(refusal)
	if m == nil || !strings.Contains(refusal, "mcpsum taint list") {
		t.Fatalf("refusal: %s", refusal)
	}
	session := m[1]
	if !strings.HasPrefix(session, fmt.Sprintf("%d-", os.Getpid())) {
		t.Fatalf("session %s is not this process (the proxy's parent)", session)
	}

	for _, args := range [][]string{{"taint", "list"}, {"taint", "reset", session}, {"taint", "reset", "--all"}} {
		_, stderr, code := taintCLI(t, env, false, args...)
		if code != 1 || !strings.Contains(stderr, "runs only from a terminal") {
			t.Errorf("%v without a terminal: exit %d, %s", args, code, stderr)
		}
	}

	out, stderr, code := taintCLI(t, env, true, "taint", "list")
	if code != 0 {
		t.Fatalf("taint list: exit %d %s", code, stderr)
	}
	for _, want := range []string{
		"session " + session + " (live)",
		fmt.Sprintf("client pid %d: ", os.Getpid()),
		"tainted by 'resources:*' on server goe: 1 time, first 20",
		"after review: mcpsum taint reset " + session,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("taint list lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := taintCLI(t, env, true, "taint", "reset", "nosuch"); code != 2 || !strings.Contains(stderr, "mcpsum taint list") {
		t.Errorf("reset of an unknown session: exit %d %s", code, stderr)
	}
	if _, stderr, code := taintCLI(t, env, true, "taint", "reset"); code != 2 {
		t.Errorf("reset without a session: exit %d %s", code, stderr)
	}
	out, stderr, code = taintCLI(t, env, true, strings.Fields(m[0])[1:]...)
	if code != 0 || out != "reset session "+session+"\n" {
		t.Fatalf("%s: exit %d %q %s", m[0], code, out, stderr)
	}
	// The running proxy sees the reset at once.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"a"}}}`)
	if r := string(p.await("3")["result"]); !strings.Contains(r, "Hi a") {
		t.Fatalf("after reset: %s", r)
	}
	if out, _, _ := taintCLI(t, env, true, "taint", "list"); !strings.HasPrefix(out, "no tainted sessions") {
		t.Errorf("list after reset: %s", out)
	}
	taintByResource(p, "4")
	if out, _, code := taintCLI(t, env, true, "taint", "reset", "--all"); code != 0 || out != "reset 1 session\n" {
		t.Errorf("reset --all: exit %d %q", code, out)
	}
	p.wait()
}

// A taint policy that cannot be enforced does not run as if it were: a bad
// MCPSUM_SESSION stops the proxy before it serves anything (exit 3).
func TestTaintProxyRefusesBadSession(t *testing.T) {
	t.Parallel()
	dir := lockGoEverything(t)
	_, env := taintState(t)
	cmd := taintProxy(dir, "goe", append(env, "MCPSUM_SESSION=../../x"))
	cmd.Stdin = strings.NewReader("")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "MCPSUM_SESSION") {
		t.Fatalf("exit %v, stderr %s", err, stderr.String())
	}
}
