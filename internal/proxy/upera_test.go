package proxy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/testbin"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

var goConfOnce struct {
	sync.Once
	dir string
	err error
}

// goConformanceServer builds go-sdk's conformance/everything-server (the
// server the official suite's scenarios were written for) once per test
// binary and returns its argv (stdio).
func goConformanceServer(t *testing.T) []string {
	goConfOnce.Do(func() {
		goConfOnce.dir, goConfOnce.err = os.MkdirTemp("", "proxy-goconf-") // inside the isolated TMPDIR
	})
	if goConfOnce.err != nil {
		t.Fatal(goConfOnce.err)
	}
	return []string{testbin.Build(t, filepath.Join(goConfOnce.dir, "everything-server"),
		"github.com/modelcontextprotocol/go-sdk/conformance/everything-server")}
}

// Issue 40 leftover (TestServeConformance's "bridged" exception): a legacy
// client calls a tool of a dual-era go-sdk server that asks the client
// with a legacy sampling/createMessage. Directly, the legacy client keeps
// the server on 2025-11-25 and the request reaches the client. Through the
// proxy the lock is 2026-07-28 (mcpsum lock asks server/discover first,
// LOCKFILE.md "Protocol era"), the proxy core speaks only that era to the
// server (served.upEra = lock.Era(), check.go handshake), and go-sdk
// refuses a legacy request while serving a 2026-07-28 request ("cannot be
// sent while serving a request on protocol version 2026-07-28"), inside
// the server, so no bridge translation can recover it.
//
// Checked to fail today (the call's result is the tool's error quoting that
// refusal, and the client is never asked). Skipped because the fix, keeping
// a legacy client's upstream session on the server's legacy version, goes
// against LOCKFILE.md ("The proxy talks to each server only in its locked
// era."): the format's owner must decide first (docs/proxy.md, "Known
// limit"; docs/serve.md, "Conformance"). Remove the Skip with the fix.
//
// Measured for that decision (throwaway runs, 2026-12-06): locked with
// launch.Lock's prefer=legacy (what a re-lock of a legacy entry does), the
// same server passes this test through the proxy unchanged; and its
// legacy listing has the same per-item digests as its 2026-07-28 lock (28
// tools, 0 differences, same capabilities; only the surface digest, which
// covers protocolVersion/supportedVersions, differs). So a legacy upstream
// session could be checked item by item against the 2026-07-28 lock.
func TestLegacyClientAskedByDualEraServer(t *testing.T) {
	if os.Getenv("MCPSUM_ISSUE40_ERA") != "1" {
		t.Skip("issue 40: the fix needs a LOCKFILE.md decision (the proxy speaks only the locked era); MCPSUM_ISSUE40_ERA=1 runs it")
	}
	argv := goConformanceServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := launch.Lock(ctx, "goconf", argv, nil, "", nil, launch.Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	if e.Era() != lockfile.EraModern {
		t.Fatalf("go-sdk's conformance server locked in era %s, want %s (it offers both): the test no longer shows the case", e.Era(), lockfile.EraModern)
	}
	s := startProxy(t, e)
	s.initialize() // legacy 2025-11-25, declaring sampling
	asked := false
	m := s.callAnswering("tools/call", `{"name":"test_sampling","arguments":{"prompt":"say hi"}}`, func(method string) string {
		if method != "sampling/createMessage" {
			t.Errorf("unexpected request %q to the client", method)
			return `{}`
		}
		asked = true
		return `{"role":"assistant","content":{"type":"text","text":"hi from the client"},"model":"test"}`
	})
	if m.Error != nil || !asked || !strings.Contains(string(m.Result), "hi from the client") {
		t.Fatalf("test_sampling through the proxy: client asked %v, result %s, error %+v", asked, m.Result, m.Error)
	}
}
