package serve

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// serverProcs counts the running server processes whose command line holds
// marker among this test process's descendants (serve starts its servers
// as children): a scan of every process on the machine (hundreds during a
// whole `go test ./...`), 50 times a second while the test waited, was most
// of this test's CPU.
func serverProcs(t testing.TB, marker string) int {
	t.Helper()
	n := 0
	for _, pid := range descendants(strconv.Itoa(os.Getpid())) {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(marker)) {
			stat, _ := os.ReadFile("/proc/" + pid + "/stat")
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
				continue // a zombie: it exited
			}
			n++
		}
	}
	return n
}

// descendants lists the pids below pid, from each of its threads' children
// file (the child belongs to the thread that started it).
func descendants(pid string) []string {
	var out []string
	files, _ := filepath.Glob("/proc/" + pid + "/task/*/children")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			out = append(out, c)
			out = append(out, descendants(c)...)
		}
	}
	return out
}

// One server process per legacy session, ended with the session (DELETE,
// or idle); 2026-07-28 requests of one client identity share one, and
// another identity (another Mcpsum-Session) gets its own.
func TestSessionsAndProcesses(t *testing.T) {
	t.Parallel()
	marker := "marker-sessions-" + time.Now().Format("150405.000000")
	f := startServe(t, map[string]*lockfile.Server{"t": lockServer(t, "-desc", marker)}, func(c *Config) { c.Idle = 2 * time.Second })
	count := func() int {
		time.Sleep(80 * time.Millisecond) // with waitFor's 20 ms: a /proc scan each 0.1 s, not 50 a second
		return serverProcs(t, marker)
	}
	a := f.goClient(t, "t", "legacy", nil, nil)
	b := f.goClient(t, "t", "legacy", nil, nil)
	if _, _, err := callText(t, a, "echo", map[string]any{"text": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := callText(t, b, "echo", map[string]any{"text": "b"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("two legacy sessions run %d server processes, want 2", n)
	}
	a.Close() // DELETE
	waitFor(t, "the deleted session's server to stop", func() bool { return count() == 1 })

	m1 := f.goClient(t, "t", "modern", nil, nil)
	m2 := f.goClient(t, "t", "modern", nil, nil)
	if _, _, err := callText(t, m1, "echo", map[string]any{"text": "m1"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := callText(t, m2, "echo", map[string]any{"text": "m2"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("a legacy session and two 2026-07-28 clients of one identity run %d server processes, want 2", n)
	}
	other := f.goClient(t, "t", "modern", nil, http.Header{"Mcpsum-Session": {"other-client"}})
	if _, _, err := callText(t, other, "echo", map[string]any{"text": "o"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Fatalf("a client naming another session: %d server processes, want 3", n)
	}
	// Idle: every session and core ends, and so does its server.
	waitFor(t, "idle sessions and cores to end", func() bool { return count() == 0 })
	if _, _, err := callText(t, b, "echo", map[string]any{"text": "late"}); err == nil {
		t.Fatal("a call on a session that was reaped went through")
	}
	if !strings.Contains(f.log.String(), "idle for 2s: ended") {
		t.Errorf("the log does not say the sessions were reaped:\n%s", f.log)
	}
	// A 2026-07-28 client just goes on: its next request starts a core.
	if got, _, err := callText(t, m1, "echo", map[string]any{"text": "again"}); err != nil || got != "again" {
		t.Fatalf("a 2026-07-28 call after its core was reaped: %q %v", got, err)
	}
}
