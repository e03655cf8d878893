//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server that daemonises (a subshell runs setsid, which leaves the
// process group and session, and the subshell exits: a double fork) leaves
// nothing behind after lock, verify or the proxy (issue 12.5): mcpsum is a
// child subreaper and ends the orphans when no server runs.
func TestNoOrphansFromDaemonisingServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%100000)
	// The daemon is a shell that records SIGTERM and exits, leaving its own
	// child (sleep) to be reparented and ended in a second round: the stop is
	// gentle (SIGTERM first, then SIGKILL) for the whole tree.
	termed := filepath.Join(dir, "termed")
	// The server waits until the daemon's trap is set (a SIGTERM before
	// that would end it silently).
	ready := filepath.Join(dir, "ready")
	daemon := fmt.Sprintf(`trap "echo term >> %s; exit 0" TERM; sleep %s & echo > %s; wait`, termed, marker, ready)
	writeExe(t, filepath.Join(dir, "srv.sh"), fmt.Sprintf(
		"#!/bin/sh\nrm -f %s\n( setsid sh -c '%s' & )\nwhile [ ! -e %s ]; do sleep 0.01; done\nexec %s\n", ready, daemon, ready, bin.gosrv))
	terms := func() int {
		b, _ := os.ReadFile(termed)
		return strings.Count(string(b), "term")
	}
	mustLock(t, dir, nil, "--name", "d", "--", "./srv.sh")
	noLeftovers(t, marker)
	if n := terms(); n < 1 {
		t.Errorf("the daemon was not sent SIGTERM before SIGKILL (%d)", n)
	}
	if out, stderr, code := mcpsum(t, dir, nil, "verify"); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
	}
	noLeftovers(t, marker)
	cs := goClient(t, proxyCmd(dir, "d"), "legacy", nil)
	if _, err := callJSON(t, cs, "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	if len(leftovers(t, marker)) == 0 {
		t.Fatal("the daemon did not start while the server ran: the test proves nothing")
	}
	cs.Close()
	noLeftovers(t, marker)
}

// A variable withheld from an unsandboxed server cannot be read from
// mcpsum's /proc/PID/environ (issue 12.6), as root and as an unprivileged
// user: mcpsum is non-dumpable and has cleared its environment block.
func TestWithheldSecretNotInParentEnviron(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "mcpsum-environ-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o777); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(base, "mcpsum")
	srv := filepath.Join(base, "gosrv")
	for src, dst := range map[string]string{bin.mcpsum: exe, bin.gosrv: srv} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	users := []struct {
		name string
		cred *syscall.Credential
	}{{"self", nil}}
	if os.Geteuid() == 0 {
		users = append(users, struct {
			name string
			cred *syscall.Credential
		}{"nobody", &syscall.Credential{Uid: 65534, Gid: 65534}})
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			dir := filepath.Join(base, u.name)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if u.cred != nil {
				if err := os.Chown(dir, int(u.cred.Uid), int(u.cred.Gid)); err != nil {
					t.Fatal(err)
				}
			}
			seen := filepath.Join(dir, "seen")
			writeExe(t, filepath.Join(dir, "srv.sh"), fmt.Sprintf(
				"#!/bin/sh\ncat /proc/$PPID/environ > %s 2>&1\necho \"read exit $?\" >> %s\nexec %s\n", seen, seen, srv))
			if err := os.Chmod(filepath.Join(dir, "srv.sh"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "lock", "--name", "s", "--", "./srv.sh")
			cmd.Dir = dir
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MCPSUM_TEST_SECRET=hunter2-withheld"}
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("lock as %s: %v\n%s", u.name, err, out)
			}
			got, err := os.ReadFile(seen)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(got), "hunter2") {
				t.Fatalf("as %s the server read the withheld variable from mcpsum's environ:\n%q", u.name, got)
			}
			if !strings.Contains(string(got), "read exit") {
				t.Fatalf("the server did not try to read: %q", got)
			}
			// The proxy sets its guard up while it reads its flags and
			// the lock (process.Before): in force before it starts the server too.
			if err := os.Remove(seen); err != nil {
				t.Fatal(err)
			}
			cmd = exec.Command(exe, "proxy", "--name", "s")
			cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MCPSUM_TEST_SECRET=hunter2-withheld"}
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}` + "\n")
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), `"result"`) {
				t.Fatalf("proxy as %s: %v\n%s", u.name, err, out)
			}
			if got, err = os.ReadFile(seen); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(got), "hunter2") || !strings.Contains(string(got), "read exit") {
				t.Fatalf("as %s the server the proxy started read %q from mcpsum's environ", u.name, got)
			}
			// A non-dumpable mcpsum still starts a sandbox (a non-root user
			// writes the new namespace's id maps only while dumpable).
			if out, _, code := mcpsum(t, dir, nil, "doctor"); code != 0 && !strings.Contains(out, "available:       yes") {
				return
			}
			setPolicy(t, dir, "s", map[string]any{"sandbox": map[string]any{
				"filesystem": map[string]any{"read": []string{base}}}})
			cmd = exec.Command(exe, "verify")
			cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("sandboxed verify as %s: %v\n%s", u.name, err, out)
			}
		})
	}
}

// lock prints what a reviewer must see (issues 12.6, 12.8, 13.4): a
// code-loading variable, an absolute path into the lockfile's folder, a
// look-alike tool name, and a sandbox write path over a git repository (the
// sandbox computed that warning before, but nothing showed it).
func TestLockWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeExe(t, filepath.Join(dir, "srv.sh"), fmt.Sprintf("#!/bin/sh\nexec %s -extra-tool '\u0435cho'\n", bin.gosrv))
	stderr := mustLock(t, dir, nil, "--name", "w", "--env", "NODE_OPTIONS", "--", filepath.Join(dir, "srv.sh"))
	for _, want := range []string{
		"lock: warning: w: envPassthrough NODE_OPTIONS makes the server load code",
		"lock: warning: w: command holds \"" + filepath.Join(dir, "srv.sh") + "\", inside the lockfile's folder",
		`lock: warning: w: tool "\u0435cho": mixes scripts Cyrillic and Latin`,
		`lock: warning: w: tools "echo" and "\u0435cho" look alike`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("lock output lacks %q:\n%s", want, stderr)
		}
	}
	if out, _, code := mcpsum(t, t.TempDir(), nil, "doctor"); code != 0 && !strings.Contains(out, "available:       yes") {
		return // no sandbox here: the write-path warning needs one to re-lock
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	setPolicy(t, dir, "w", map[string]any{"sandbox": map[string]any{
		"filesystem": map[string]any{"read": []string{bin.dir}, "write": []string{repo}}}})
	stderr = mustLock(t, dir, nil)
	if want := "holds a git repository: the server can change its hooks"; !strings.Contains(stderr, want) {
		t.Errorf("sandboxed re-lock does not warn %q:\n%s", want, stderr)
	}
}

// doctor reports the process protections (issue 12): here, on Linux, both
// are in force in the real binary.
func TestDoctorReportsProtections(t *testing.T) {
	t.Parallel()
	out, _, _ := mcpsum(t, t.TempDir(), nil, "doctor")
	for _, want := range []string{"process protections (unsandboxed servers):", "child subreaper: yes", "non-dumpable: yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
