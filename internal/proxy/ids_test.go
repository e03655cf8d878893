package proxy

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/idmap"
	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// sinkUpstream is an upstream that records what the proxy writes to it.
type sinkUpstream struct{ lines []string }

func (s *sinkUpstream) WriteLine(parts ...[]byte) error {
	var b strings.Builder
	for _, p := range parts {
		b.Write(p)
	}
	s.lines = append(s.lines, b.String())
	return nil
}
func (s *sinkUpstream) Messages() io.Reader           { return strings.NewReader("") }
func (s *sinkUpstream) Exited() <-chan struct{}       { return nil }
func (s *sinkUpstream) ExitError() error              { return nil }
func (s *sinkUpstream) StderrTail() []string          { return nil }
func (s *sinkUpstream) Stop(_, _ time.Duration) error { return nil }

// A call over the cap gets a JSON-RPC error naming the cap at once, and
// nothing reaches the server.
func TestCallOverCapGetsError(t *testing.T) {
	p, out := framingProxy(t, lockfile.EraLegacy)
	p.gate.state = gateOpen
	up := &sinkUpstream{}
	p.up = up
	for i := range mcpspec.MaxCallsInFlight {
		p.ids.Forward(&call{Call: idmap.Call{ClientID: strconv.AppendInt(nil, int64(i), 10)}, method: "tools/call"})
	}
	line := []byte(`{"jsonrpc":"2.0","id":"over","method":"tools/call","params":{"name":"x"}}`)
	env, id, err := jsonline.ScanEnvelope(line)
	if err != nil {
		t.Fatal(err)
	}
	p.submit(&request{line: line, env: env, id: id, method: "tools/call"})
	got := out.String()
	want := strconv.Itoa(mcpspec.MaxCallsInFlight) + " calls in flight"
	if !strings.Contains(got, `"id":"over"`) || !strings.Contains(got, `"error"`) || !strings.Contains(got, want) || !strings.Contains(got, "MaxCallsInFlight") {
		t.Fatalf("the client got %q, want an error naming the cap", got)
	}
	if len(up.lines) != 0 {
		t.Fatalf("the server got %q", up.lines)
	}
}
