//go:build unix

package mcpwire

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"

	"github.com/mcpsum/mcpsum/internal/process"
)

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpPeer starts a real server that listens on 127.0.0.1:port and waits
// until it accepts connections; it is stopped when the test ends.
func httpPeer(t testing.TB, port int, env []string, argv ...string) {
	t.Helper()
	p, err := process.Start(process.Spec{Argv: argv, Env: append(process.Environ(nil), env...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(2 * time.Second) })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-p.Done():
			t.Fatalf("%s exited before it listened: %v", argv[0], p.ExitError())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s within 30s: %v", argv[0], addr, p.StderrTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// everythingHTTP starts @modelcontextprotocol/server-everything's
// Streamable HTTP transport (legacy era, SSE answers) and returns its URL.
func everythingHTTP(t testing.TB) string {
	argv := nodeServer(t, "server-everything", "streamableHttp")
	port := freePort(t)
	httpPeer(t, port, []string{"PORT=" + strconv.Itoa(port)}, argv...)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// goHTTP starts a go-sdk v1.8.0 server over HTTP and returns its URL:
// examples/server/everything -http (go-sdk's stateful handler, which
// serves only the legacy era over HTTP) or e2e's gosrv -http -stateless
// (2026-07-28).
func goHTTP(t testing.TB, name string, args ...string) string {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	httpPeer(t, port, nil, append([]string{peer(t, name), "-http", addr}, args...)...)
	return "http://" + addr
}

func probeHTTP(t *testing.T, spec mcphttp.Spec) (*Client, *Hello, *Surface) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, h, err := Probe(ctx, httpStart(t, spec), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(time.Second) })
	s, err := ListAll(ctx, c, h)
	if err != nil {
		t.Fatal(err)
	}
	return c, h, s
}

func TestHTTPLegacyServerEverything(t *testing.T) {
	url := everythingHTTP(t)
	_, h, s := probeHTTP(t, mcphttp.Spec{URL: url})
	if h.Era != mcpspec.EraLegacy || h.ProtocolVersion != mcpspec.LegacyVersion {
		t.Fatalf("era %s %s, want legacy %s (%s)", h.Era, h.ProtocolVersion, mcpspec.LegacyVersion, h.Note)
	}
	if len(s.Tools) < 5 || len(s.Prompts) == 0 || len(s.Resources) == 0 {
		t.Fatalf("surface: %d tools, %d prompts, %d resources; server-everything has more", len(s.Tools), len(s.Prompts), len(s.Resources))
	}
	t.Logf("%s; %d tools", h.Note, len(s.Tools))
}

func TestHTTPLegacyGoSDKEverything(t *testing.T) {
	url := goHTTP(t, "gosdk-everything")
	_, h, s := probeHTTP(t, mcphttp.Spec{URL: url})
	if h.Era != mcpspec.EraLegacy || !strings.Contains(h.Note, "listed only legacy versions") {
		t.Fatalf("era %s (%s), want legacy after a legacy-only DiscoverResult", h.Era, h.Note)
	}
	if len(s.Tools) != 10 || len(s.Prompts) != 2 {
		t.Fatalf("%d tools, %d prompts; go-sdk's everything has 10 and 2", len(s.Tools), len(s.Prompts))
	}
}

func TestHTTPModernGoSDK(t *testing.T) {
	url := goHTTP(t, "gosrv", "-stateless")
	_, h, s := probeHTTP(t, mcphttp.Spec{URL: url})
	if h.Era != mcpspec.EraModern {
		t.Fatalf("era %s (%s), want modern", h.Era, h.Note)
	}
	if len(s.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	t.Logf("%s; %d tools", h.Note, len(s.Tools))
}

// BenchmarkListAllHTTPvsStdio lists the same real server (e2e's gosrv,
// go-sdk v1.8.0, 2026-07-28) over its stdio and over Streamable HTTP
// (stateless handler, SSE answers) in one run, one session each, and
// reports the time of one full ListAll (four lists) on each transport and
// their ratio.
func BenchmarkListAllHTTPvsStdio(b *testing.B) {
	ctx := context.Background()
	st := &starter{spec: process.Spec{Argv: []string{peer(b, "gosrv")}, Env: process.Environ(nil)}}
	cs, hs, err := Probe(ctx, st.start, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close(time.Second)
	url := goHTTP(b, "gosrv", "-stateless")
	ch, hh, err := Probe(ctx, httpStart(b, mcphttp.Spec{URL: url}), 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer ch.Close(time.Second)
	var stdio, http time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := ListAll(ctx, cs, hs); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := ListAll(ctx, ch, hh); err != nil {
			b.Fatal(err)
		}
		stdio += t1.Sub(t0)
		http += time.Since(t1)
	}
	b.ReportMetric(float64(stdio.Microseconds())/float64(b.N), "µs-stdio/listall")
	b.ReportMetric(float64(http.Microseconds())/float64(b.N), "µs-http/listall")
	b.ReportMetric(float64(http)/float64(stdio), "http/stdio")
}
