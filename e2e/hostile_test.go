package e2e

import (
	"os"
	"strings"
	"testing"
)

// A FAKE hostile server (e2e/servers/hostile -mode ansi) puts ANSI escapes,
// bidi overrides and zero-width characters in its descriptions. lock pins them
// as sent; show and verify never let them reach the terminal raw and flag the
// items as suspicious.
func TestShowEscapesHostileText(t *testing.T) {
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
