package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/proxy/proxytest"
	"github.com/mcpsum/mcpsum/internal/proxy/proxytest/locktest"
	"github.com/mcpsum/mcpsum/internal/taintguard"
	"github.com/mcpsum/mcpsum/internal/testbin"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The test binary doubles as a real go-sdk MCP server (proxytest), started
// by re-executing itself with proxytest.ServeFlag: the locked stdio
// upstream of every test here.
func TestMain(m *testing.M) {
	proxytest.MaybeServe()
	os.Exit(testbin.Run(m))
}

const testToken = "test-token-0123456789abcdef"

// serverCmd and lockServer start and lock this test binary as proxytest's
// server (locktest: each server variant locked once per test process).
var (
	serverCmd  = locktest.Command
	lockServer = locktest.Lock
)

// fixture is a Server under test behind httptest, with its log.
type fixture struct {
	srv *Server
	url string // base URL
	log *testbin.SyncBuffer
	hs  *httptest.Server
}

// startServe serves entries (by name) with cfg's zero fields defaulted.
func startServe(t testing.TB, entries map[string]*lockfile.Server, tweak ...func(*Config)) *fixture {
	t.Helper()
	log := &testbin.SyncBuffer{}
	cfg := Config{Lockfile: "mcp.lock", File: &lockfile.File{Servers: entries}, Token: testToken,
		Pin: launch.Options{Timeout: 20 * time.Second}, Stderr: log}
	for _, e := range entries {
		if taintguard.Guarded(e) && cfg.State == nil {
			sh, err := taintguard.OpenShared(t.TempDir(), nil, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sh.Close)
			cfg.State = sh
		}
	}
	for _, f := range tweak {
		f(&cfg)
	}
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return &fixture{srv: s, url: hs.URL, log: log, hs: hs}
}

// bearer adds the token (and headers) to every request of a client.
type bearer struct {
	token string
	extra http.Header
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.extra {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// goClient connects go-sdk's client to server name: era "legacy" sends
// initialize 2025-11-25, "modern" lets it do what it does by default
// (server/discover, then 2026-07-28 stateless requests).
func (f *fixture) goClient(t testing.TB, name, era string, opts *mcp.ClientOptions, extra http.Header) *mcp.ClientSession {
	t.Helper()
	cs, err := f.dial(name, era, opts, extra)
	if err != nil {
		t.Fatalf("connect to %s over HTTP (%s): %v\nlog:\n%s", name, era, err, f.log)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func (f *fixture) dial(name, era string, opts *mcp.ClientOptions, extra http.Header) (*mcp.ClientSession, error) {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "serve-test", Version: "1"}, opts)
	so := &mcp.ClientSessionOptions{}
	if era == "legacy" {
		so.ProtocolVersion = "2025-11-25"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: f.url + Path(name), HTTPClient: &http.Client{Transport: bearer{testToken, extra}}, MaxRetries: -1}
	return c.Connect(ctx, tr, so)
}

// callText calls a tool and returns its first text content, or the error.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args any) (string, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// rawPost posts body to server name with headers; it returns the status,
// the response headers and the body.
func (f *fixture) rawPost(t testing.TB, name, body string, h http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.url+Path(name), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range h {
		if k == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header, b.String()
}

const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// counts says how many legacy sessions and 2026-07-28 cores run.
func (s *Server) counts() (sessions, cores int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pools {
		for _, c := range p.cores {
			if !c.ended() {
				cores++
			}
		}
	}
	for _, ss := range s.sessions {
		if !ss.core.ended() {
			sessions++
		}
	}
	return sessions, cores
}
