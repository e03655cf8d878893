package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

// A FAKE hostile server (e2e/servers/hostile -mode ansi) puts ANSI escapes,
// bidi overrides and zero-width characters in its descriptions. lock pins them
// as sent; show and verify never let them reach the terminal raw and flag the
// items as suspicious.
func TestShowEscapesHostileText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "hostile", "--", bin.hostile, "-mode", "ansi")
	data, _ := os.ReadFile(dir + "/mcp.lock")
	if !strings.Contains(string(data), `\u001b[31m`) {
		t.Errorf("the lock does not pin the ANSI escape as sent (JSON-escaped)")
	}
	out, errOut, code := mcpsum(t, dir, nil, "show")
	if code != 0 {
		t.Fatalf("show: exit %d\n%s", code, errOut)
	}
	for _, raw := range []string{"\x1b", "\u202e", "\u200b", "\u2066"} {
		if strings.Contains(out+errOut, raw) {
			t.Errorf("show wrote the raw character %q to the terminal", raw)
		}
	}
	for _, want := range []string{`\u001b[31mIMPORTANT\u001b[0m`, `\u202egnp.exe\u202c`, "2 item(s) contain control, ANSI, bidi or zero-width characters", "SUSPICIOUS characters in: description"} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
}

// leftovers lists live processes whose command line mentions marker.
func leftovers(t *testing.T, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc: cannot check the process table")
	}
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		if st, err := process.ReadStat(e.Name()); err == nil && st.Field(3) == "Z" {
			continue // a zombie is already dead; its parent reaps it
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// Broken and hostile servers (all FAKES, e2e/servers/hostile) through the
// real binary: each either locks correctly or fails with exit 3 and a clear
// message, within the timeout, leaving mcp.lock byte-identical and no
// process behind.
func TestLockHostileServers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode string
		code int
		msg  string // in stderr when the lock fails
	}{
		{"longline", 0, ""},
		{"exit-on-probe", 0, ""}, // restarted and initialized after the probe killed it
		{"err32022-legacy", 0, ""},
		{"badutf8", 3, "UTF-8"},
		{"nonjson", 3, "not JSON"},
		{"silent", 3, "no answer"},
		{"loop", 3, "cursor"},
		{"many", 3, "1000"},
		{"dupnames", 3, "more than one tool"},
		{"exit-mid", 3, "exit status 7"},
		{"wrongversion", 3, "2099-01-01"},
		{"discover-noinfo", 3, "serverInfo"},
		{"err32021", 3, "-32021"},
		{"stubborn", 0, ""},
		{"spawn", 0, ""},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			mustLock(t, dir, nil, "--name", "good", "--", bin.gosrv)
			before, _ := os.ReadFile(dir + "/mcp.lock")
			marker := "-mode " + c.mode + " " + dir
			start := time.Now()
			_, stderr, code := mcpsum(t, dir, nil, "lock", "--timeout-secs", "2", "--start-timeout-secs", "2", "--name", "h", "--", bin.hostile, "-mode", c.mode, dir)
			if code != c.code {
				t.Errorf("lock of hostile -mode %s: exit %d, want %d\n%s", c.mode, code, c.code, stderr)
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("lock took %s with --timeout-secs 2 --start-timeout-secs 2", took)
			}
			if c.code != 0 {
				if !strings.Contains(stderr, c.msg) {
					t.Errorf("stderr lacks %q:\n%s", c.msg, stderr)
				}
				if after, _ := os.ReadFile(dir + "/mcp.lock"); string(after) != string(before) {
					t.Errorf("a failed lock changed mcp.lock")
				}
			}
			if strings.Contains(stderr, "\x1b") {
				t.Errorf("raw escape on stderr")
			}
			noLeftovers(t, marker)
		})
	}
}
