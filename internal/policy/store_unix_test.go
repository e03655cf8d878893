//go:build unix

package policy

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckFIFOCountsAsTainted: a session file that is a FIFO (or a link to
// a device) is not waited on: Check returns at once with a Problem, which
// counts as tainted.
func TestCheckFIFOCountsAsTainted(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	os.MkdirAll(st.Dir(), 0o700)
	if err := syscall.Mkfifo(st.path("s1"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", st.path("s2"))
	for _, id := range []string{"s1", "s2"} {
		done := make(chan State, 1)
		go func() { done <- st.Check(id) }()
		select {
		case s := <-done:
			if s.Problem == "" || !strings.Contains(s.Problem, "not a regular file") {
				t.Errorf("Check(%s) = %+v, want a Problem naming the non-regular file", id, s)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Check(%s) still reading after 10 s", id)
		}
	}
}
