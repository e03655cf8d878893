package e2e

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
)

// TestProxyPerformance measures, in one run and interleaved, the same work
// done directly against a small go-sdk server (proxysrv), through a plain
// byte relay (the floor for any proxy), and through `mcpsum proxy`, and
// prints the figures and ratios the README quotes. It asserts only that
// everything passes (timing on shared CI machines is noise); run it with
//
//	MCPSUM_PROXY_PERF=1 go test ./e2e -run TestProxyPerformance -v
//
// MCPSUM_BENCH_ROUNDS sets the interleaved rounds (default 5).
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestProxyPerformance(t *testing.T) {
	if os.Getenv("MCPSUM_PROXY_PERF") != "1" {
		t.Skip("set MCPSUM_PROXY_PERF=1 to run the proxy benchmark")
	}
	srv, relay := proxyServers(t)
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "s", "--", srv, "-versions", "2025-11-25")
	mustLock(t, dir, nil, "--name", "slowstart", "--timeout-secs", "30", "--", srv, "-versions", "2025-11-25", "-start-delay", "1s")
	lock := filepath.Join(dir, "mcp.lock")
	modes := []struct {
		name string
		argv []string
	}{
		{"direct", []string{srv, "-versions", "2025-11-25"}},
		{"relay", []string{relay, srv, "-versions", "2025-11-25"}},
		{"proxy", []string{bin.mcpsum, "proxy", "--lockfile", lock, "--name", "s"}},
		{"lean", []string{bin.proxylean, lock, "s"}},
	}
	// MCPSUM_BENCH_BASELINE names an mcpsum built from another commit: its
	// proxy runs interleaved with this one, for a before/after ratio.
	base := os.Getenv("MCPSUM_BENCH_BASELINE")
	if base != "" {
		modes = append(modes, struct {
			name string
			argv []string
		}{"baseline", []string{base, "proxy", "--lockfile", lock, "--name", "s"}})
	}
	rounds := 5 // MCPSUM_BENCH_ROUNDS, as for TestLeanBench
	if n, err := strconv.Atoi(os.Getenv("MCPSUM_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const small, big = 400, 4
	const bigBytes = 8 << 20
	lat := map[string][]time.Duration{}
	tput := map[string][]float64{}
	rss := map[string]int64{}
	for r := 0; r < rounds; r++ {
		for _, m := range modes {
			c := startBench(t, m.argv)
			c.initialize()
			c.call(`{"name":"add","arguments":{"a":1,"b":2}}`) // warm
			for i := 0; i < small; i++ {
				start := time.Now()
				c.call(`{"name":"add","arguments":{"a":1,"b":2}}`)
				lat[m.name] = append(lat[m.name], time.Since(start))
			}
			for i := 0; i < big; i++ {
				start := time.Now()
				n := len(c.call(fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, bigBytes)))
				tput[m.name] = append(tput[m.name], float64(n)/(1<<20)/time.Since(start).Seconds())
			}
			rss[m.name] = max(rss[m.name], peakRSS(c.cmd.Process.Pid))
			c.close()
		}
	}
	p50 := func(name string) time.Duration {
		d := slices.Clone(lat[name])
		slices.Sort(d)
		return d[len(d)/2]
	}
	med := func(name string) float64 {
		v := slices.Clone(tput[name])
		slices.Sort(v)
		return v[len(v)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-8s %12s %14s %12s\n", "", "small p50", "8 MiB MiB/s", "peak RSS")
	for _, m := range modes {
		fmt.Fprintf(&b, "%-8s %12s %14.0f %9.1f MiB\n", m.name, p50(m.name).Round(time.Microsecond), med(m.name), float64(rss[m.name])/(1<<20))
	}
	fmt.Fprintf(&b, "small-call p50: proxy/relay %.2fx, lean/relay %.2fx, proxy/direct %.2fx, relay/direct %.2fx\n",
		float64(p50("proxy"))/float64(p50("relay")), float64(p50("lean"))/float64(p50("relay")), float64(p50("proxy"))/float64(p50("direct")), float64(p50("relay"))/float64(p50("direct")))
	fmt.Fprintf(&b, "8 MiB throughput: proxy %.0f%%, lean %.0f%%, relay %.0f%% of direct\n", 100*med("proxy")/med("direct"), 100*med("lean")/med("direct"), 100*med("relay")/med("direct"))
	if base != "" {
		fmt.Fprintf(&b, "proxy vs baseline: small-call p50 %.3fx, 8 MiB throughput %.3fx, peak RSS %.3fx\n",
			float64(p50("proxy"))/float64(p50("baseline")), med("proxy")/med("baseline"), float64(rss["proxy"])/float64(rss["baseline"]))
	}

	// First initialize answered from the lock while the server takes 1 s to
	// start, from the exec of the proxy binary to the answer.
	firstOf := [][]string{
		{bin.mcpsum, "proxy", "--lockfile", lock, "--name", "slowstart"},
		{bin.proxylean, lock, "slowstart"},
	}
	if base != "" {
		firstOf = append(firstOf, []string{base, "proxy", "--lockfile", lock, "--name", "slowstart"})
	}
	for _, argv := range firstOf {
		var firsts []time.Duration
		for i := 0; i < 7; i++ {
			start := time.Now()
			c := startBench(t, argv)
			c.initialize()
			firsts = append(firsts, time.Since(start))
			c.close()
		}
		slices.Sort(firsts)
		fmt.Fprintf(&b, "first initialize via %s (server starts in 1 s): median %s, min %s\n", filepath.Base(argv[0]), firsts[3].Round(100*time.Microsecond), firsts[0].Round(100*time.Microsecond))
	}
	fmt.Fprintf(&b, "  (for scale: exec of `mcpsum version` takes %s here)\n", startupTime(t).Round(100*time.Microsecond))

	// A 64 MiB line passes (the default maximum).
	c := startBench(t, modes[2].argv)
	c.initialize()
	const lineMax = 64 << 20
	n := len(c.call(fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, lineMax-100)))
	if n < lineMax-100 || n > lineMax {
		t.Errorf("a %d-byte line came through as %d bytes", lineMax-100, n)
	}
	fmt.Fprintf(&b, "a %d-byte (64 MiB) line passed; proxy peak RSS then %.1f MiB\n", n, float64(peakRSS(c.cmd.Process.Pid))/(1<<20))
	c.close()
	fastThroughput(t, &b, srv, relay, t.TempDir(), base)
	t.Log(b.String())
}

// startupTime is the median time to exec `mcpsum version`.
func startupTime(t *testing.T) time.Duration {
	var d []time.Duration
	for i := 0; i < 5; i++ {
		start := time.Now()
		if err := exec.Command(bin.mcpsum, "version").Run(); err != nil {
			t.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	return d[2]
}

// benchClient is a minimal synchronous JSON-RPC client: it never decodes a
// result, so it measures the transport, not JSON.
type benchClient struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *mcpwire.LineReader
	next int
}

func startBench(t *testing.T, argv []string) *benchClient {
	cmd := exec.Command(argv[0], argv[1:]...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &benchClient{t: t, cmd: cmd, in: in, out: mcpwire.NewLineReader(out, 65<<20)}
}

func (c *benchClient) request(method, params string) []byte {
	c.next++
	id := fmt.Sprintf(`"id":%d,`, c.next)
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0",`+id+`"method":"`+method+`","params":`+params+"}\n"); err != nil {
		c.t.Fatal(err)
	}
	for {
		l, err := c.out.Next()
		if err != nil {
			c.t.Fatalf("%v: %v", c.cmd.Args, err)
		}
		if bytes.Contains(l[:min(len(l), 64)], []byte(id)) || bytes.HasSuffix(l, []byte(strings.TrimSuffix(id, ",")+"}")) {
			return l
		}
	}
}

func (c *benchClient) initialize() {
	c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
}

func (c *benchClient) call(params string) []byte { return c.request("tools/call", params) }

func (c *benchClient) close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// TestProxyThroughput is TestProxyPerformance's 8 MiB row against a fast
// server; run it with
//
//	MCPSUM_PROXY_PERF=1 go test ./e2e -run TestProxyThroughput -v
//
// (MCPSUM_BENCH_BASELINE adds an older mcpsum, as there).
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestProxyThroughput(t *testing.T) {
	if os.Getenv("MCPSUM_PROXY_PERF") != "1" {
		t.Skip("set MCPSUM_PROXY_PERF=1 to run the proxy benchmark")
	}
	srv, relay := proxyServers(t)
	var b strings.Builder
	fastThroughput(t, &b, srv, relay, t.TempDir(), os.Getenv("MCPSUM_BENCH_BASELINE"))
	t.Log("\n" + b.String())
}

// fastThroughput measures 8 MiB results from proxytest's fast server
// (FastBig answers at write speed, so the relay and the proxy are the
// bottleneck, not the server's encoder): direct, through the splice relay
// (with the kernel's default pipes, and with the 256 KiB pipes the proxy
// grows at a long line) and through the proxy, interleaved, and prints the
// proxy/relay ratios, for
// a text result ("big") and for a structuredContent of rows of small
// members ("rows", where the proxy's JSON check has the most to do).
func fastThroughput(t *testing.T, b *strings.Builder, srv, relay, dir, base string) {
	mustLock(t, dir, nil, "--name", "fast", "--", srv, "-fake-fast-big")
	lock := filepath.Join(dir, "mcp.lock")
	modes := []string{"direct", "relay", "relay256", "proxy"}
	argv := map[string][]string{
		"direct": {srv, "-fake-fast-big"},
		"relay":  {relay, srv, "-fake-fast-big"},
		// the relay with the 256 KiB pipes the proxy grows at a long line
		"relay256": {"/usr/bin/env", "PROXYRELAY_PIPE=262144", relay, srv, "-fake-fast-big"},
		"proxy":    {bin.mcpsum, "proxy", "--lockfile", lock, "--name", "fast"},
	}
	if base != "" {
		modes = append(modes, "baseline")
		argv["baseline"] = []string{base, "proxy", "--lockfile", lock, "--name", "fast"}
	}
	const rounds, calls, size = 7, 8, 8 << 20
	tools := []string{"big", "rows"}
	tput := map[string][]float64{} // by tool and mode
	for r := 0; r < rounds; r++ {
		for _, m := range modes {
			c := startBench(t, argv[m])
			c.initialize()
			for _, tool := range tools {
				params := fmt.Sprintf(`{"name":%q,"arguments":{"bytes":%d}}`, tool, size)
				c.call(params) // warm
				for i := 0; i < calls; i++ {
					start := time.Now()
					n := len(c.call(params))
					if n < size {
						t.Fatalf("%s: a %d-byte %s result came through as %d bytes", m, size, tool, n)
					}
					tput[tool+" "+m] = append(tput[tool+" "+m], float64(n)/(1<<20)/time.Since(start).Seconds())
				}
			}
			c.close()
		}
	}
	for _, tool := range tools {
		med := func(name string) float64 {
			v := slices.Clone(tput[tool+" "+name])
			slices.Sort(v)
			return v[len(v)/2]
		}
		what := map[string]string{"big": "text", "rows": "structuredContent rows"}[tool]
		fmt.Fprintf(b, "8 MiB of %s from the fast server (MiB/s, median of %d): direct %.0f, relay %.0f, proxy %.0f", what, rounds*calls, med("direct"), med("relay"), med("proxy"))
		if base != "" {
			fmt.Fprintf(b, ", baseline %.0f (proxy/baseline %.2fx)", med("baseline"), med("proxy")/med("baseline"))
		}
		fmt.Fprintf(b, "\n  proxy/relay %.2fx (goal >= 0.8x), proxy/direct %.2fx, relay/direct %.2fx; relay with 256 KiB pipes %.0f, proxy/it %.2fx\n", med("proxy")/med("relay"), med("proxy")/med("direct"), med("relay")/med("direct"), med("relay256"), med("proxy")/med("relay256"))
	}
}
