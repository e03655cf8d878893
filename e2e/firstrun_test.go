package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// `mcpsum proxy` started by hand in a terminal says on stderr that it waits
// for a client, and prints a command that tries it; that command, run as
// printed from another folder, lists the locked tools through the proxy.
func TestProxyInTerminalSaysHowToTryIt(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// The Node.js versions the README states are the ones the pinned packages
// declare (their package-lock.json engines): what the example servers need
// (the closure of the four official servers' dependencies) and what the test
// peers need (every package e2e installs: the inspector client asks more).
// The Node running the tests must meet the servers' requirement.
func TestNodeRequirementStated(t *testing.T) {
	t.Parallel()
	var lock struct {
		Packages map[string]struct {
			Dependencies         map[string]string `json:"dependencies"`
			OptionalDependencies map[string]string `json:"optionalDependencies"`
			Engines              map[string]any    `json:"engines"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	need := func(names []string) (semver, string) {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(n string) {
			if seen[n] {
				return
			}
			seen[n] = true
			p := lock.Packages["node_modules/"+n]
			for d := range p.Dependencies {
				walk(d)
			}
		}
		for _, n := range names {
			walk(n)
		}
		var max semver
		who := ""
		for n := range seen {
			e, _ := lock.Packages["node_modules/"+n].Engines["node"].(string)
			if v := lowestAllowed(e); max.less(v) {
				max, who = v, n
			}
		}
		return max, who
	}
	servers, why := need([]string{"@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-filesystem",
		"@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-sequential-thinking"})
	var all []string
	for k := range lock.Packages {
		if n, ok := strings.CutPrefix(k, "node_modules/"); ok && !strings.Contains(n, "/node_modules/") {
			all = append(all, n)
		}
	}
	tests, whyTests := need(all)
	readme, _ := os.ReadFile("../README.md")
	for _, want := range []string{
		"Node.js " + servers.String() + " or newer",
		"Node.js " + tests.String() + " or newer",
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q (servers: %s from %s; tests: %s from %s)", want, servers, why, tests, whyTests)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		requirePeers(t, "node is not installed")
		return
	}
	have := lowestAllowed(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"))
	if have.less(servers) {
		t.Errorf("node %s runs the tests; the example servers need %s or newer (%s)", have, servers, why)
	}
	if have.less(tests) {
		t.Logf("node %s is older than the %s the test peers declare (%s): npm ci warns EBADENGINE", have, tests, whyTests)
	}
}

type semver [3]int

func (a semver) less(b semver) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// String is the shortest spelling: 20, 22.19, 22.19.1.
func (a semver) String() string {
	s := fmt.Sprint(a[0])
	if a[1] != 0 || a[2] != 0 {
		s += fmt.Sprintf(".%d", a[1])
	}
	if a[2] != 0 {
		s += fmt.Sprintf(".%d", a[2])
	}
	return s
}

// lowestAllowed is the lowest version an engines range allows, in the
// forms npm packages use: ">=22.12.0", "^20.19.0 || >=22.12.0",
// "18 || 20 || >=22", ">= 16"; "" allows any.
func lowestAllowed(r string) semver {
	var low semver
	first := true
	for _, alt := range strings.Split(r, "||") {
		alt = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(alt), ">=^~ "))
		var v semver
		for i, p := range strings.SplitN(alt, ".", 3) {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				break
			}
			v[i] = n
		}
		if first || v.less(low) {
			low, first = v, false
		}
	}
	return low
}

// docs/signing.md's offline recipe, run as written: an openssl P-256 key
// signs mcp.lock and its public half verifies the bundle; a changed byte of
// the lock then fails verification (exit 1).
func TestSigningDocOpenSSLKey(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		requirePeers(t, "openssl is not installed")
	}
	doc, err := os.ReadFile("../docs/signing.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "\n## Offline, with a plain P-256 key\n")
	_, after, ok2 := strings.Cut(after, "```sh\n")
	block, _, ok3 := strings.Cut(after, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/signing.md has no offline key recipe")
	}
	dir := t.TempDir()
	lock, err := os.ReadFile("../testdata/lockfiles/valid.lock")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "mcp.lock"), lock, 0o644)
	cmd := exec.Command("sh", "-e", "-c", block)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin.mcpsum)+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the recipe failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok") {
		t.Errorf("verify printed no verdict:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "mcp.lock"), append(lock, '\n'), 0o644)
	if _, stderr, code := mcpsum(t, dir, nil, "verify", "--signature", "mcp.lock.sigstore.json", "--key", "lock.pub"); code != 1 {
		t.Errorf("a changed lock verified with the key: exit %d\n%s", code, stderr)
	}
}

// Ctrl-C during a re-lock of two entries, after one of them finished: lock
// writes the finished one (a failed server does not hold back the others),
// and the interruption message says the file was rewritten, not that
// nothing was written.
func TestLockInterruptedAfterOneFinished(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+bin.gosrv+"\n"), 0o755)
	serverScript(t, dir) // srv.sh: the fast one
	mustLock(t, dir, nil, "--name", "fast", "--", "sh", "srv.sh")
	mustLock(t, dir, nil, "--name", "slow", "--", "sh", "slow.sh")
	serverScript(t, dir, "-desc", "a new release's wording") // its re-lock changes the file
	os.WriteFile(script, []byte("#!/bin/sh\ntouch started; exec sleep 60\n"), 0o755)

	cmd := exec.Command(bin.mcpsum, "lock")
	cmd.Dir = dir
	var stderr testbin.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "fast") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the fast server never finished:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	out := stderr.String()
	if !strings.Contains(out, "mcpsum: lock interrupted (interrupt signal received): mcp.lock was rewritten with the servers that finished before it") ||
		!strings.Contains(out, "\nmcpsum: hint: see what changed: git diff HEAD -- mcp.lock\n") {
		t.Errorf("lock interrupted after one server finished:\n%s", out)
	}
	if _, stderr, code := mcpsum(t, dir, nil, "verify", "--offline"); code != 0 {
		t.Errorf("the rewritten lock does not verify offline: %d\n%s", code, stderr)
	}
}
