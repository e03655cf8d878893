package serve

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// remoteServer starts the test server over Streamable HTTP (go-sdk's
// handler; -stateless: 2026-07-28) and returns its base URL.
func remoteServer(t testing.TB, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(serverCmd(t)[0], append(serverCmd(t, "-http", addr), args...)[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 500 {
			t.Fatalf("the HTTP test server did not listen: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr
}

// dropping is a front of the server at target that drops every POST whose
// body holds "drop-me" (FAKE: its connection is closed before any answer,
// as a crashed worker behind a balancer does; no real server does it on
// purpose) and passes the rest through.
func dropping(t testing.TB, target string) string {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte("drop-me")) {
			panic(http.ErrAbortHandler)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// A locked remote server served over HTTP: serve's core speaks to it in
// its locked era (legacy sessions, 2026-07-28 stateless POSTs), for
// clients of both eras. A request the remote drops fails that call only:
// the next call of the same client goes through (point 4 of issue 40).
func TestRemoteUpstream(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"legacy", "stateless"} {
		var args []string
		if mode == "stateless" {
			args = []string{"-stateless"}
		} else {
			args = []string{"-versions=2025-11-25"}
		}
		front := dropping(t, remoteServer(t, args...))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		e, err := launch.LockTarget(ctx, "r", &lockfile.Server{URL: front + "/mcp", Headers: map[string]string{}}, "", launch.Options{Timeout: 20 * time.Second})
		cancel()
		if err != nil {
			t.Fatalf("lock the %s remote server: %v", mode, err)
		}
		f := startServe(t, map[string]*lockfile.Server{"r": e})
		for _, era := range []string{"legacy", "modern"} {
			cs := f.goClient(t, "r", era, nil, nil)
			for i, text := range []string{"first", "drop-me", "after"} {
				got, _, err := callText(t, cs, "echo", map[string]any{"text": text})
				switch {
				case i == 1 && err == nil:
					t.Fatalf("%s remote, %s client: the dropped call answered %q", mode, era, got)
				case i != 1 && (err != nil || got != text):
					t.Fatalf("%s remote, %s client: call %d: %q %v\nlog:\n%s", mode, era, i, got, err, f.log)
				}
			}
		}
	}
}
