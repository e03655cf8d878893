package policy

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// suggest-policy's reasons name at most eight unlabelled tools for a second
// look, quoted; a tool name with a terminal escape is shown escaped.
func TestWriteReasonsNamesUnlabelledTools(t *testing.T) {
	var sg Suggestion
	for i := range 10 {
		sg.Reasons = append(sg.Reasons, Reason{Tool: fmt.Sprintf("read %d", i), Why: "read-only, closed world"})
	}
	sg.Reasons = append(sg.Reasons, Reason{Tool: "send\x1b[2J", Sink: true, Why: "may write"})
	var buf bytes.Buffer
	sg.WriteReasons(&buf)
	out := buf.String()
	if !strings.Contains(out, "review 'read 0', 'read 1', 'read 2', 'read 3', 'read 4', 'read 5', 'read 6', 'read 7', …\n") {
		t.Errorf("second-look note:\n%s", out)
	}
	if !strings.Contains(out, `sink         send\u001b[2J  (may write)`) || strings.ContainsRune(out, 0x1b) {
		t.Errorf("sink line:\n%q", out)
	}
}

// taint list shows what a client and a server wrote escaped, and the reset
// command of each session.
func TestWriteSessionsEscapes(t *testing.T) {
	at := time.Date(2026, 12, 3, 21, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	WriteSessions(&buf, []Listed{{State: State{Session: "p1-2",
		Clients: []Client{{PID: 7, Command: "client \x1b]0;evil\x07"}},
		Sources: []Source{{Server: "web\u202e", Label: "fetch", Count: 2, First: at, Last: at}}}, Live: true}})
	out := buf.String()
	for _, want := range []string{"session p1-2 (live)", `client pid 7: client \u001b]0;evil\u0007`,
		`tainted by fetch on server $'web\u202e': 2 times, first 2026-12-03T21:00:00Z`, "after review: mcpsum taint reset p1-2"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("raw control characters:\n%q", out)
	}
}
