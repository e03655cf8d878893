package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// monitorLog makes a log folder holding records for keys (surfaces made up
// per key: monitor reads records, it runs no server).
func monitorLog(t *testing.T, dir string, keys ...string) string {
	t.Helper()
	vkey, err := sumlog.Init(dir, "monitor.e2e/mcp")
	if err != nil {
		t.Fatal(err)
	}
	addKeys(t, dir, keys...)
	return vkey
}

func addKeys(t *testing.T, dir string, keys ...string) {
	t.Helper()
	var entries []sumlog.Entry
	for _, k := range keys {
		entries = append(entries, sumlog.Entry{Key: k, Surface: sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{k: "sha256:" + strings.Repeat("e", 64)}, {}, {}, {}}}})
	}
	if _, err := sumlog.Add(context.Background(), dir, sumlog.Options{}, entries); err != nil {
		t.Fatal(err)
	}
}

// mcpsum-log monitor follows a log from its tiles, as a cron job would
// (--once): the first run reports the watched keys' records, the next one
// nothing new (exit 0), new records of watched keys are reported as text
// and JSON lines (exit 4), a log that rolls back or forks is an
// inconsistency with both signed checkpoints (exit 1), an unreachable one
// exit 3; without --once it keeps following and reports records as they
// are logged.
func TestMonitor(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "log")
	vkey := monitorLog(t, dir, "npm/@corp/a@1.0.0#00", "npm/b@1.0.0#00", "pypi/c@1.0#00")
	snapshot := filepath.Join(t.TempDir(), "snap")
	copyTree(t, dir, snapshot) // the log at three records
	url, _ := serveLog(t, dir)
	state := filepath.Join(t.TempDir(), "monitor.checkpoint")
	mon := func(logURL string, args ...string) (string, string, int) {
		t.Helper()
		return mcpsumLog(t, t.TempDir(), append([]string{"monitor", "--log", vkey + " " + logURL, "--state", state, "--once"}, args...)...)
	}
	so, se, code := mon(url, "--watch", "npm/@corp/*")
	if code != 4 || !strings.Contains(so, `new     "npm/@corp/a@1.0.0#00" sha256:`) || strings.Contains(so, "npm/b@") || !strings.Contains(se, "3 records (checked from 0): consistent; 1 new record") {
		t.Fatalf("first run: exit %d, want 4\n%s%s", code, so, se)
	}
	if so, se, code = mon(url, "--watch", "npm/@corp/*"); code != 0 || so != "" || !strings.Contains(se, "consistent; 0 new records") {
		t.Fatalf("nothing new: exit %d, want 0\n%s%s", code, so, se)
	}
	addKeys(t, dir, "npm/@corp/a@1.1.0#00", "npm/z@9.0.0#00")
	so, se, code = mon(url, "--watch", "npm/@corp/*", "--json")
	if code != 4 {
		t.Fatalf("new records: exit %d, want 4\n%s%s", code, so, se)
	}
	var events []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(so), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		events = append(events, ev)
	}
	if len(events) != 2 || events[0]["event"] != "record" || events[0]["key"] != "npm/@corp/a@1.1.0#00" || events[0]["index"] != float64(3) ||
		events[1]["event"] != "checkpoint" || events[1]["size"] != float64(5) || events[1]["from"] != float64(3) {
		t.Fatalf("JSON lines: %v", events)
	}

	// The snapshot (3 records) served as the log: a rollback.
	snapURL, _ := serveLog(t, snapshot)
	so, se, code = mon(snapURL)
	if code != 1 || !strings.Contains(se, "rolled back") || strings.Count(se, "monitor.e2e/mcp\n") != 2 {
		t.Fatalf("rollback: exit %d, want 1 with both checkpoints\n%s%s", code, so, se)
	}
	// The snapshot grown otherwise to 5 records: a fork, in JSON too.
	addKeys(t, snapshot, "npm/evil@1.0.0#00", "npm/evil2@1.0.0#00")
	so, _, code = mon(snapURL, "--json")
	if code != 1 || !strings.Contains(so, `"event":"inconsistent"`) || !strings.Contains(so, "forked") || !strings.Contains(so, `"checked":"monitor.e2e/mcp\n5\n`) {
		t.Fatalf("fork: exit %d, want 1\n%s", code, so)
	}
	if _, se, code = mon("http://127.0.0.1:1"); code != 3 || !strings.Contains(se, "cannot be reached") {
		t.Fatalf("unreachable: exit %d, want 3\n%s", code, se)
	}

	// Following: a record logged while the monitor runs is reported.
	cmd := exec.Command(bin.log, "monitor", "--log", vkey+" "+url, "--state", state, "--interval-secs", "1", "--watch", "pypi/*")
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	addKeys(t, dir, "pypi/c@2.0#00")
	select {
	case l := <-lines:
		if !strings.Contains(l, `"pypi/c@2.0#00"`) || !strings.Contains(l, "(record 5)") {
			t.Fatalf("the running monitor reported %q", l)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the running monitor did not report the new record")
	}
}
