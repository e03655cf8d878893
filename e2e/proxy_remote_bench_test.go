package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProxyRemotePerformance measures, in one run and interleaved, the
// go-sdk client calling a small tool of a 2026-07-28 go-sdk server over
// Streamable HTTP directly and the same client calling it through `mcpsum
// proxy` (stdio to the proxy, HTTP from it), and the proxy's peak RSS
// while it relays 8 MiB results. It prints the figures docs/performance.md
// quotes and asserts only that everything passes; run it with
//
//	MCPSUM_PROXY_PERF=1 go test ./e2e -run TestProxyRemotePerformance -v
func TestProxyRemotePerformance(t *testing.T) {
	if os.Getenv("MCPSUM_PROXY_PERF") != "1" {
		t.Skip("set MCPSUM_PROXY_PERF=1 to run the remote proxy benchmark")
	}
	u, _ := proxysrvHTTP(t, "-stateless")
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "go", "--url", u)
	ctx := context.Background()
	connect := func(tr mcp.Transport) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		cs, err := c.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	direct := connect(&mcp.StreamableClientTransport{Endpoint: u})
	defer direct.Close()
	proxied := connect(&mcp.CommandTransport{Command: proxyCmd(dir, "go")})
	defer proxied.Close()
	args := map[string]any{"a": 1, "b": 2}
	lat := map[string][]time.Duration{}
	const rounds, calls = 7, 200
	for r := 0; r < rounds; r++ {
		for _, m := range []struct {
			name string
			cs   *mcp.ClientSession
		}{{"direct", direct}, {"proxy", proxied}} {
			if _, err := toolText(ctx, m.cs, "add", args); err != nil { // warm
				t.Fatal(err)
			}
			for i := 0; i < calls; i++ {
				start := time.Now()
				if _, err := toolText(ctx, m.cs, "add", args); err != nil {
					t.Fatal(err)
				}
				lat[m.name] = append(lat[m.name], time.Since(start))
			}
		}
	}
	p50 := func(name string) time.Duration {
		d := slices.Clone(lat[name])
		slices.Sort(d)
		return d[len(d)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nsmall call p50: direct over HTTP %s, through mcpsum proxy %s: %.2fx (goal <= 1.25x)\n",
		p50("direct").Round(time.Microsecond), p50("proxy").Round(time.Microsecond), float64(p50("proxy"))/float64(p50("direct")))

	// Peak RSS of the proxy relaying 8 MiB results from the remote server.
	c := startBench(t, []string{bin.mcpsum, "proxy", "--lockfile", dir + "/mcp.lock", "--name", "go"})
	c.initialize()
	const bigBytes = 8 << 20
	var tput []float64
	for i := 0; i < 4; i++ {
		start := time.Now()
		n := len(c.call(fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, bigBytes)))
		if n < bigBytes {
			t.Fatalf("an 8 MiB result came through as %d bytes", n)
		}
		tput = append(tput, float64(n)/(1<<20)/time.Since(start).Seconds())
	}
	rss := peakRSS(c.cmd.Process.Pid)
	c.close()
	slices.Sort(tput)
	fmt.Fprintf(&b, "8 MiB results through the proxy: %.0f MiB/s (median of 4), proxy peak RSS %.1f MiB (goal <= 12 MiB)\n", tput[2], float64(rss)/(1<<20))
	t.Log(b.String())
}
