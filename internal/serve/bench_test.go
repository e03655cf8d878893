package serve

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime/metrics"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// BenchmarkRemoteCall is one client calling a small tool through serve
// (in process), the server a remote upstream (the test server over
// Streamable HTTP, a process of its own), in both of the server's eras:
// serve's hop is the only thing measured besides a plain HTTP client. It
// reports the goroutines started per call (serve's, and the HTTP
// client's, which is the same before and after a change) and, with
// MCPSUM_TRACE=FILE, writes an execution trace of the timed calls alone,
// in which the goroutine hand-offs per call can be counted (each blocked
// goroutine made runnable again: docs/performance.md):
//
//	MCPSUM_TRACE=/tmp/t.out go test ./internal/serve -run '^$' -bench RemoteCall/legacy -benchtime 500x
//	go tool trace -d=parsed /tmp/t.out | grep -c 'Waiting->Runnable'
func BenchmarkRemoteCall(b *testing.B) {
	for _, mode := range []string{"legacy", "stateless"} {
		b.Run(mode, func(b *testing.B) {
			args := []string{"-versions=2025-11-25"}
			if mode == "stateless" {
				args = []string{"-stateless"}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			e, err := launch.LockTarget(ctx, "r", &lockfile.Server{URL: remoteServer(b, args...) + "/mcp", Headers: map[string]string{}}, "", launch.Options{Timeout: 20 * time.Second})
			cancel()
			if err != nil {
				b.Fatalf("lock the %s remote server: %v", mode, err)
			}
			f := startServe(b, map[string]*lockfile.Server{"r": e})
			h := http.Header{}
			call := func(id int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, id)
			}
			if mode == "stateless" {
				h.Set("MCP-Protocol-Version", "2026-07-28")
				h.Set("Mcp-Method", "tools/call")
				h.Set("Mcp-Name", "echo")
				call = func(id int) string {
					return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id)
				}
			} else {
				_, rh, _ := f.rawPost(b, "r", legacyInit, nil)
				h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
				h.Set("MCP-Protocol-Version", "2025-11-25")
				f.rawPost(b, "r", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
			}
			id := 10
			check := func() {
				id++
				if st, _, body := f.rawPost(b, "r", call(id), h); st != 200 || !strings.Contains(body, `"hi"`) {
					b.Fatalf("call: %d %s\nlog:\n%s", st, body, f.log)
				}
			}
			check()
			m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
			metrics.Read(m)
			before := m[0].Value.Uint64()
			if p := os.Getenv("MCPSUM_TRACE"); p != "" {
				tf, err := os.Create(p)
				if err != nil {
					b.Fatal(err)
				}
				defer tf.Close()
				trace.Start(tf)
			}
			b.ResetTimer()
			for b.Loop() {
				check()
			}
			trace.Stop()
			metrics.Read(m)
			b.ReportMetric(float64(m[0].Value.Uint64()-before)/float64(b.N), "goroutines/op")
		})
	}
}
