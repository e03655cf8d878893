package serve

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime/trace"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// BenchmarkStdioCall is one legacy client calling a small tool (echo) of
// the test server: directly over the server's own Streamable HTTP
// ("direct", a process of its own), and through serve (in process) with
// the same server as a stdio upstream, locked in each era ("stdio-legacy":
// serve speaks initialize to it as the client does; "stdio-modern": the
// era lock detects, serve bridging the legacy client to it). The plain
// HTTP client is the same in every case. MCPSUM_TRACE=FILE writes an
// execution trace of the timed calls alone (see BenchmarkRemoteCall).
func BenchmarkStdioCall(b *testing.B) {
	for _, mode := range []string{"direct", "stdio-legacy", "stdio-modern"} {
		b.Run(mode, func(b *testing.B) {
			var url string
			if mode == "direct" {
				url = remoteServer(b) + "/mcp"
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				opts := launch.Options{Timeout: 20 * time.Second}
				if mode == "stdio-legacy" {
					opts.Era = lockfile.EraLegacy
				}
				e, err := launch.Lock(ctx, "t", serverCmd(b), nil, "", nil, opts)
				cancel()
				if err != nil {
					b.Fatalf("lock: %v", err)
				}
				f := startServe(b, map[string]*lockfile.Server{"t": e})
				url = f.url + Path("t")
			}
			post := func(body string, h http.Header) (int, http.Header, string) {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+testToken)
				for k, v := range h {
					req.Header[k] = v
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				var sb strings.Builder
				buf := make([]byte, 32<<10)
				for {
					n, err := resp.Body.Read(buf)
					sb.Write(buf[:n])
					if err != nil {
						break
					}
				}
				return resp.StatusCode, resp.Header, sb.String()
			}
			h := http.Header{}
			_, rh, _ := post(legacyInit, nil)
			h.Set("Mcp-Session-Id", rh.Get("Mcp-Session-Id"))
			h.Set("MCP-Protocol-Version", "2025-11-25")
			post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
			id := 10
			check := func() {
				id++
				if st, _, body := post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, id), h); st != 200 || !strings.Contains(body, `"hi"`) {
					b.Fatalf("call: %d %s", st, body)
				}
			}
			check()
			if p := os.Getenv("MCPSUM_TRACE"); p != "" {
				tf, err := os.Create(p + "." + mode)
				if err != nil {
					b.Fatal(err)
				}
				defer tf.Close()
				trace.Start(tf)
			}
			kids0 := childrenCPU()
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			b.ResetTimer()
			for b.Loop() {
				check()
			}
			trace.Stop()
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			self := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(self.Microseconds())/float64(b.N), "self-cpu-µs/op")
			b.ReportMetric(float64((childrenCPU()-kids0).Microseconds())/float64(b.N), "server-cpu-µs/op")
		})
	}
}

// childrenCPU sums the CPU time (user and system) of this process's live
// children, from /proc/PID/stat (clock ticks of 10 ms).
func childrenCPU() time.Duration {
	me := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var ticks int64
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 13 || f[1] != me {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + st
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
