package proxy

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
)

// A quarantine (or failure) is recorded before its error is written to the
// requests waiting for it; the end of input can stop the session in
// between (finish sees the gate quarantined and returns at once). What
// shutdown then answers still says the session's verdict: -32002 for a
// quarantine, the failure for a failure, never "the request was not
// answered" (CI saw a drifted server's piped calls get that, with
// QUARANTINED on stderr).
func TestShutdownAnswersWithTheVerdict(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(p *Proxy)
		want string
	}{
		{"quarantined", func(p *Proxy) {
			p.gate.state = gateQuarantined
			p.gate.quarantine = &QuarantineError{Server: "t", Reason: "its definitions changed", Next: "mcpsum verify"}
		}, `"code":-32002`},
		{"failed", func(p *Proxy) {
			p.gate.state = gateFailed
			p.gate.failure = errors.New("it exited")
		}, `failed: it exited`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, out := framingProxy(t, "legacy")
			tc.set(p)
			p.gate.held = append(p.gate.held, &request{id: []byte(`1`), method: "tools/call"})
			p.ids.Put(9, &call{Call: idmap.Call{ClientID: []byte(`2`)}, method: "tools/call"})
			p.shutdown("the client closed its input")
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("want an answer to each of the two waiting requests, got %q", out.String())
			}
			for _, l := range lines {
				if !strings.Contains(l, tc.want) || strings.Contains(l, "not answered") {
					t.Errorf("answer %s, want one with %s", l, tc.want)
				}
			}
		})
	}
}
