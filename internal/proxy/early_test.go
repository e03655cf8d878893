package proxy

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
)

// Serve starts a local server before it builds the rest of the session
// (early.go). When the rest cannot be built (here: locked capabilities that
// are not an object), the server it already started is stopped and reaped
// before Serve returns: nothing outlives the proxy.
func TestServeStopsTheEarlyServerWhenSetUpFails(t *testing.T) {
	e := lockServer(t, legacyOnly)
	bad := *e
	bad.Capabilities = json.RawMessage(`[]`)
	procs := make(chan *process.Process, 1)
	opts := Options{Name: "t", Lockfile: "mcp.lock", Entry: &bad, Grace: time.Second,
		Start: func() (*process.Process, func(), error) {
			p, err := process.Start(process.Spec{Argv: bad.Command, Env: process.Environ(nil)})
			if err == nil {
				procs <- p
			}
			return p, func() {}, err
		}}
	err := Run(context.Background(), strings.NewReader(""), io.Discard, opts)
	if err == nil || !strings.Contains(err.Error(), "capabilities") {
		t.Fatalf("Run: %v, want the locked capabilities' error", err)
	}
	select {
	case p := <-procs:
		select {
		case <-p.Done():
		default:
			t.Fatal("the server started before the set-up failed is still running after Run returned")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not start the server before it built the session")
	}
}

// The server Serve started first is the session's: its handshake answers
// the client's (one start, not two).
func TestServeUsesTheEarlyServer(t *testing.T) {
	e := lockServer(t, legacyOnly)
	starts := make(chan struct{}, 4)
	s := startProxy(t, e, func(o *Options) {
		o.Start = func() (*process.Process, func(), error) {
			starts <- struct{}{}
			p, err := process.Start(process.Spec{Argv: e.Command, Env: process.Environ(nil)})
			return p, func() {}, err
		}
	})
	s.initialize()
	if _, m := s.request("tools/list", `{}`); m.Error != nil {
		t.Fatalf("tools/list: %v", m.Error)
	}
	if err := s.close(); err != nil {
		t.Fatalf("proxy: %v", err)
	}
	if n := len(starts); n != 1 {
		t.Fatalf("the server was started %d times, want once", n)
	}
}
