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

// A legacy client calls a tool of a dual-era go-sdk server (go-sdk's
// conformance server, the server the official suite's scenarios were
// written for) that asks the client with a legacy sampling/createMessage.
// The proxy speaks to a server only in its locked era (LOCKFILE.md,
// "Protocol era"; served.upEra = lock.Era()).
//
// Locked with --era legacy (launch.Options.Era), the proxy's session with
// the server is legacy, the server's request reaches the client, and its
// answer reaches the tool.
//
// Locked as detected (2026-07-28), go-sdk refuses the legacy request inside
// the server ("cannot be sent while serving a request on protocol version
// 2026-07-28") and the tool answers with an isError result: the legacy
// client then also gets mcpsum's note naming the cause and the commands
// that lock the server in the legacy era (e2e TestEraHintThroughProxyAndServe
// runs them).
func TestLegacyClientAskedByDualEraServer(t *testing.T) {
	t.Parallel()
	argv := goConformanceServer(t)
	for _, tc := range []struct {
		era, want string
	}{{lockfile.EraLegacy, lockfile.EraLegacy}, {"", lockfile.EraModern}} {
		t.Run("locked "+tc.want, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			e, err := launch.Lock(ctx, "goconf", argv, nil, "", nil, launch.Options{Timeout: 20 * time.Second, Era: tc.era})
			if err != nil {
				t.Fatalf("lock: %v", err)
			}
			if e.Era() != tc.want {
				t.Fatalf("go-sdk's conformance server locked in era %s, want %s", e.Era(), tc.want)
			}
			s := startProxy(t, e, func(o *Options) { o.Name = "goconf" })
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
			res := string(m.Result)
			if tc.want == lockfile.EraLegacy {
				if m.Error != nil || !asked || !strings.Contains(res, "hi from the client") || strings.Contains(res, "mcpsum:") {
					t.Fatalf("test_sampling through the proxy: client asked %v, result %s, error %+v", asked, res, m.Error)
				}
				return
			}
			for _, want := range []string{eraRefusal, `"isError":true`, `mcpsum: server \"goconf\" is locked in the 2026-07-28 era`,
				"mcpsum lock --lockfile mcp.lock --remove goconf", "mcpsum lock --lockfile mcp.lock --era legacy --name goconf -- " + argv[0]} {
				if !strings.Contains(res, want) {
					t.Errorf("the legacy client's result lacks %q:\n%s", want, res)
				}
			}
			if asked || m.Error != nil {
				t.Errorf("client asked %v, error %+v", asked, m.Error)
			}
		})
	}
}
