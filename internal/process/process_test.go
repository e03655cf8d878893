//go:build unix

package process

import (
	"bufio"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

func TestEnviron(t *testing.T) {
	t.Setenv("MCPWIRE_PASS", "yes")
	t.Setenv("MCPWIRE_SECRET", "no")
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("HOME", "/home/x")
	t.Setenv("TMPDIR", "") // restored at cleanup…
	os.Unsetenv("TMPDIR")  // …so it can be unset here
	got := Environ([]string{"MCPWIRE_PASS", "MCPWIRE_UNSET", "MCPWIRE_PASS", "BAD=NAME"})
	want := []string{"HOME=/home/x", "MCPWIRE_PASS=yes", "PATH=/usr/bin:/bin"}
	if !slices.Equal(got, want) {
		t.Fatalf("Environ = %q, want %q", got, want)
	}
}

// startLines runs argv and returns its stdout lines and the process.
func startLines(t *testing.T, spec Spec) ([]string, *Process) {
	t.Helper()
	p, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(p.Stdout())
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, p)
	return lines, p
}

func TestStartExactEnv(t *testing.T) {
	t.Setenv("MCPWIRE_SECRET", "must-not-leak")
	// "env" is found through the child's own PATH and prints exactly its environment.
	lines, _ := startLines(t, Spec{Argv: []string{"env"}, Env: []string{"A=1", "PATH=/usr/bin:/bin"}})
	if !slices.Equal(lines, []string{"A=1", "PATH=/usr/bin:/bin"}) {
		t.Fatalf("child environment = %q", lines)
	}
	// nil Env is an empty environment, not mcpsum's.
	lines, _ = startLines(t, Spec{Argv: []string{"env"}})
	if len(lines) != 0 {
		t.Fatalf("nil Env leaked %q", lines)
	}
}

func TestStartExactArgv(t *testing.T) {
	lines, _ := startLines(t, Spec{
		Argv: []string{"sh", "-c", `for a in "$0" "$@"; do printf '%s\n' "[$a]"; done`, "zero", "two words", "", "*"},
		Env:  []string{"PATH=/usr/bin:/bin"},
	})
	// The empty argument prints "[]" and is kept; no globbing, no splitting.
	if !slices.Equal(lines, []string{"[zero]", "[two words]", "[]", "[*]"}) {
		t.Fatalf("argv seen by the child: %q", lines)
	}
}

func TestStartMissingExecutable(t *testing.T) {
	_, err := Start(Spec{Argv: []string{"no-such-mcp-server-xyz", "--flag"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err == nil || !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), `"no-such-mcp-server-xyz"`) ||
		!strings.Contains(hint.Lines(err, ""), "\nhint: install it") || !strings.Contains(err.Error(), "/usr/bin:/bin") {
		t.Fatalf("unhelpful error: %v", err)
	}
	_, err = Start(Spec{Argv: []string{"/nonexistent/dir/server"}})
	if err == nil || !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("unhelpful error: %v", err)
	}
	f := filepath.Join(t.TempDir(), "server")
	os.WriteFile(f, []byte("#!/bin/sh\n"), 0o644)
	_, err = Start(Spec{Argv: []string{f}})
	if err == nil || !strings.Contains(hint.Lines(err, ""), "\nhint: make it executable: chmod +x "+f) {
		t.Fatalf("unhelpful error: %v", err)
	}
	if _, err = Start(Spec{}); err == nil {
		t.Fatal("empty argv accepted")
	}
}

func TestStderrTail(t *testing.T) {
	var copyBuf testbin.SyncBuffer
	p, err := Start(Spec{
		Argv:   []string{"sh", "-c", `i=0; while [ $i -lt 100 ]; do i=$((i+1)); echo "line $i" >&2; done; printf '\033[31mred\r\n\n' >&2; exit 3`},
		Env:    []string{"PATH=/usr/bin:/bin"},
		Stderr: &copyBuf,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	e := p.ExitError()
	if e == nil || e.Code != 3 || e.State != "exit status 3" {
		t.Fatalf("exit error %+v", e)
	}
	if len(e.Stderr) != 20 || e.Stderr[0] != "line 82" || e.Stderr[19] != `\u001b[31mred` {
		t.Fatalf("tail = %q", e.Stderr)
	}
	if msg := e.Error(); !strings.Contains(msg, "exit status 3") || !strings.Contains(msg, `| \u001b[31mred`) || strings.ContainsRune(msg, 0x1b) {
		t.Fatalf("message: %s", msg)
	}
	p.Stop(time.Second)
	if !strings.HasPrefix(copyBuf.String(), "line 1\nline 2\n") || !strings.Contains(copyBuf.String(), "\x1b[31mred") {
		t.Fatalf("raw stderr copy: %.60q", copyBuf.String())
	}
	assertGroupGone(t, p)
}

func TestStopGraceful(t *testing.T) {
	p, err := Start(Spec{Argv: []string{peer(t, "gosrv")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if e := p.ExitError(); e == nil || e.Code != 0 {
		t.Fatalf("gosrv did not exit on stdin EOF by itself: %v", e)
	}
	assertGroupGone(t, p)
	if err := p.Stop(time.Second); err != nil { // idempotent
		t.Fatal(err)
	}
}

func TestStopStubborn(t *testing.T) {
	// Ignores stdin EOF and SIGTERM: only the SIGKILL step ends it.
	p, err := Start(Spec{Argv: []string{peer(t, "hostile"), "-mode", "stubborn"}})
	if err != nil {
		t.Fatal(err)
	}
	// It ignores SIGTERM once it runs its main, before it reads stdin: its
	// answer to a ping says so. Without this wait, a loaded machine had not
	// reached main 200 ms after the start, and the SIGTERM ended it.
	if _, err := p.Stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(p.Stdout()).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("no answer to a ping: %q %v", line, err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ { // concurrent Stops wait for the first
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop(200 * time.Millisecond) }()
	}
	wg.Wait()
	if e := p.ExitError(); e == nil || e.State != "signal: killed" {
		t.Fatalf("exit: %v", e)
	}
	assertGroupGone(t, p)
}

func TestStopKillsGrandchildren(t *testing.T) {
	p, err := Start(Spec{Argv: []string{peer(t, "hostile"), "-mode", "spawn"}})
	if err != nil {
		t.Fatal(err)
	}
	grandchild := 0
	for i := 0; i < 500 && grandchild == 0; i++ {
		for _, l := range p.StderrTail() {
			if s, ok := strings.CutPrefix(l, "hostile: grandchild "); ok {
				grandchild, _ = strconv.Atoi(s)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if grandchild == 0 {
		t.Fatal("no grandchild reported")
	}
	// The child exits on stdin EOF; the grandchild (same group) would live on.
	if err := p.Stop(300 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The killed grandchild was reparented to init, which may be slow to reap
	// it (or, in some containers, never); a zombie is dead, so check for a
	// live member rather than kill(-pgid, 0).
	if GroupAlive(p.Pgid()) {
		t.Fatalf("process group %d has live members after Stop", p.Pgid())
	}
	if st, err := ReadStat(strconv.Itoa(grandchild)); err == nil && st.Field(3) != "Z" {
		t.Fatalf("grandchild %d still running: state %q", grandchild, st.Field(3))
	}
}
