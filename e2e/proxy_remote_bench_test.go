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
// go-sdk client calling a small tool of a go-sdk server over Streamable
// HTTP directly and the same client calling it through `mcpsum proxy`
// (stdio to the proxy, HTTP from it), in both eras (a stateless 2026-07-28
// server; a legacy server's session with its GET stream), and the proxy's
// peak RSS while it relays 8 MiB results. MCPSUM_BENCH_BASELINE names an
// mcpsum built from another commit, whose proxy is measured in the same
// rounds (a before/after ratio). It prints the figures docs/performance.md
// quotes and asserts only that everything passes; run it with
//
//	MCPSUM_PROXY_PERF=1 go test ./e2e -run TestProxyRemotePerformance -v
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestProxyRemotePerformance(t *testing.T) {
	if os.Getenv("MCPSUM_PROXY_PERF") != "1" {
		t.Skip("set MCPSUM_PROXY_PERF=1 to run the remote proxy benchmark")
	}
	base := os.Getenv("MCPSUM_BENCH_BASELINE")
	proxies := []struct{ name, exe string }{{"proxy", bin.mcpsum}}
	if base != "" {
		proxies = append(proxies, struct{ name, exe string }{"baseline", base})
	}
	ctx := context.Background()
	connect := func(tr mcp.Transport) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		cs, err := c.Connect(ctx, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	type mode struct {
		name string
		cs   *mcp.ClientSession
	}
	var modes []mode
	dirs := map[string]string{}
	for _, era := range []struct{ name, flag string }{{"modern", "-stateless"}, {"legacy", ""}} {
		var args []string
		if era.flag != "" {
			args = append(args, era.flag)
		}
		u, _ := proxysrvHTTP(t, args...)
		dir := t.TempDir()
		mustLock(t, dir, nil, "--name", "go", "--url", u)
		dirs[era.name] = dir
		modes = append(modes, mode{era.name + " direct", connect(&mcp.StreamableClientTransport{Endpoint: u})})
		for _, p := range proxies {
			cmd := proxyCmd(dir, "go")
			cmd.Path, cmd.Args[0] = p.exe, p.exe
			modes = append(modes, mode{era.name + " " + p.name, connect(&mcp.CommandTransport{Command: cmd})})
		}
	}
	args := map[string]any{"a": 1, "b": 2}
	lat := map[string][]time.Duration{}
	const rounds, calls = 7, 200
	for r := 0; r < rounds; r++ {
		for _, m := range modes {
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
	for _, era := range []string{"modern", "legacy"} {
		d, p := p50(era+" direct"), p50(era+" proxy")
		fmt.Fprintf(&b, "\n%s: small call p50 direct over HTTP %s, through mcpsum proxy %s: %.2fx (goal <= 1.25x)", era, d.Round(time.Microsecond), p.Round(time.Microsecond), float64(p)/float64(d))
		if base != "" {
			bp := p50(era + " baseline")
			fmt.Fprintf(&b, "; baseline proxy %s: this one %.2fx the baseline", bp.Round(time.Microsecond), float64(p)/float64(bp))
		}
	}
	b.WriteString("\n")

	// Peak RSS of the proxy relaying 8 MiB results from the remote server,
	// each proxy in turn, rounds interleaved.
	const bigBytes = 8 << 20
	tput := map[string][]float64{}
	rss := map[string]int64{}
	for r := 0; r < 3; r++ {
		for _, era := range []string{"modern", "legacy"} {
			for _, p := range proxies {
				c := startBench(t, []string{p.exe, "proxy", "--lockfile", dirs[era] + "/mcp.lock", "--name", "go"})
				c.initialize()
				for i := 0; i < 2; i++ {
					start := time.Now()
					n := len(c.call(fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, bigBytes)))
					if n < bigBytes {
						t.Fatalf("an 8 MiB result came through as %d bytes", n)
					}
					tput[era+" "+p.name] = append(tput[era+" "+p.name], float64(n)/(1<<20)/time.Since(start).Seconds())
				}
				rss[era+" "+p.name] = max(rss[era+" "+p.name], peakRSS(c.cmd.Process.Pid))
				c.close()
			}
		}
	}
	for _, era := range []string{"modern", "legacy"} {
		for _, p := range proxies {
			k := era + " " + p.name
			slices.Sort(tput[k])
			fmt.Fprintf(&b, "%s: 8 MiB results through the %s: %.0f MiB/s (median of %d), peak RSS %.1f MiB (goal <= 12 MiB)\n", era, p.name, tput[k][len(tput[k])/2], len(tput[k]), float64(rss[k])/(1<<20))
		}
	}
	t.Log(b.String())
}
