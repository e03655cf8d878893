package e2e

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// serveProc is a running `mcpsum serve`.
type serveProc struct {
	url    string // http://127.0.0.1:PORT
	token  string
	stderr *testbin.SyncBuffer
	cmd    *exec.Cmd
	done   chan struct{}
}

// startServe runs `mcpsum serve --lockfile dir/mcp.lock` on a free loopback
// port with the token in tokenFile (made when missing) and extra args,
// and waits until it listens. It is stopped with SIGTERM at the test's end.
func startServe(t testing.TB, dir, tokenFile string, env []string, extra ...string) *serveProc {
	t.Helper()
	return startServeAt(t, freePort(t), dir, tokenFile, env, extra...)
}

// freePort is a loopback port free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startServeAt is startServe on the given port.
func startServeAt(t testing.TB, port, dir, tokenFile string, env []string, extra ...string) *serveProc {
	t.Helper()
	return startServeBin(t, bin.mcpsum, port, dir, tokenFile, env, extra...)
}

// startServeBin is startServeAt with another mcpsum binary (a baseline
// built from another commit, for benchmarks).
func startServeBin(t testing.TB, exe, port, dir, tokenFile string, env []string, extra ...string) *serveProc {
	t.Helper()
	if tokenFile == "" {
		tokenFile = filepath.Join(dir, "serve-token")
	}
	args := append([]string{"serve", "--lockfile", filepath.Join(dir, "mcp.lock"), "--addr", "127.0.0.1:" + port, "--token-file", tokenFile}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	p := &serveProc{url: "http://127.0.0.1:" + port, stderr: &testbin.SyncBuffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.stop(t) })
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(p.stderr.String(), "To use one from a client"); time.Sleep(20 * time.Millisecond) {
		select {
		case <-p.done:
			t.Fatalf("mcpsum serve exited: %s", p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcpsum serve did not start within 60s: %s", p.stderr)
		}
	}
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	p.token = strings.TrimSpace(string(b))
	return p
}

// stop ends serve with SIGTERM (it stops every server it started) and
// waits for it.
func (p *serveProc) stop(t testing.TB) {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Errorf("mcpsum serve did not stop within 30s of SIGTERM")
	}
}

// at is the URL of server name.
func (p *serveProc) at(name string) string { return p.url + "/servers/" + name + "/mcp" }

// withToken adds a bearer token and headers to a client's requests, and
// records a response header's values (seen, when set).
type withToken struct {
	token string
	extra http.Header
	seen  func(http.Header)
}

func (b withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.extra {
		r.Header[k] = v
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && b.seen != nil {
		b.seen(resp.Header)
	}
	return resp, err
}

// httpClient connects go-sdk's client to url over Streamable HTTP with the
// token: era "legacy" sends initialize 2025-11-25, "modern" lets it speak
// 2026-07-28 when offered.
func httpClient(t testing.TB, url string, rt withToken, era string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, opts)
	so := &mcp.ClientSessionOptions{}
	if era == "legacy" {
		so.ProtocolVersion = "2025-11-25"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1}, so)
	if err != nil {
		t.Fatalf("connect to %s (%s): %v", url, era, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// tsClient runs e2e/tsclient/client.mjs: the TypeScript SDK (sdk v1 or
// v2) in era lists the tools at url and calls tool with args; it returns
// the JSON line it printed.
func tsClient(t testing.TB, sdk, era, url, token, tool, args string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join("node_modules", "@modelcontextprotocol", "client")); err != nil {
		requirePeers(t, "the TypeScript SDKs are not installed; run `npm ci` in e2e/")
	}
	cmd := exec.Command("node", filepath.Join("tsclient", "client.mjs"), sdk, era, url, token, tool, args)
	var stderr testbin.SyncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript SDK %s client (%s) at %s: %v\n%s\n%s", sdk, era, url, err, out, stderr.String())
	}
	return string(out)
}
