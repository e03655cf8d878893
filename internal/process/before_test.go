//go:build unix

package process

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The set-up given to Before (Guard, the signal handlers) is in force
// before any child starts, however long it takes: a child started right
// after Before sees what the set-up did. The set-up here sleeps so that a
// start that did not wait would find nothing (the pause makes the failure
// visible; the test passes on any machine when the start waits).
func TestStartWaitsForBefore(t *testing.T) {
	dir := t.TempDir()
	for _, how := range []string{"Start", "StartKept", "Settle"} {
		t.Run(how, func(t *testing.T) {
			flag := filepath.Join(dir, how)
			Before(func() {
				time.Sleep(200 * time.Millisecond)
				if err := os.WriteFile(flag, nil, 0o600); err != nil {
					t.Error(err)
				}
			})
			script := "if test -e " + flag + "; then echo set-up-done; else echo no-set-up; fi"
			var got string
			switch how {
			case "Start":
				p, err := Start(Spec{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}})
				if err != nil {
					t.Fatal(err)
				}
				defer p.Stop(time.Second)
				line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
				got = strings.TrimSpace(line)
			case "StartKept":
				cmd := exec.Command("/bin/sh", "-c", script)
				var out strings.Builder
				cmd.Stdout = &out
				wait, err := StartKept(cmd)
				if err != nil {
					t.Fatal(err)
				}
				if err := wait(); err != nil {
					t.Fatal(err)
				}
				got = strings.TrimSpace(out.String())
			case "Settle":
				Settle()
				out, err := exec.Command("/bin/sh", "-c", script).Output()
				if err != nil {
					t.Fatal(err)
				}
				got = strings.TrimSpace(string(out))
			}
			if got != "set-up-done" {
				t.Fatalf("%s: the child ran before the set-up given to Before was done (it printed %q)", how, got)
			}
		})
	}
}
