package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// TestLeanBench prints every row of issue 15's table ("lean binaries and big
// surfaces") as mcpsum-vs-floor ratios, each pair measured interleaved in one
// run (medians), with the goal beside it. It asserts only that everything
// works: timing on a shared machine is noise, so read the ratios. Run it with
//
//	scripts/bench.sh                  (or: MCPSUM_BENCH=1 go test ./e2e -run TestLeanBench -v -count=1)
//
// MCPSUM_BENCH_ROUNDS sets the rounds (default 7). MCPSUM_BENCH_BASELINE=PATH
// adds a column for another mcpsum binary (e.g. one built from an older
// commit) measured in the same interleaved rounds.
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestLeanBench(t *testing.T) {
	if os.Getenv("MCPSUM_BENCH") != "1" {
		t.Skip("set MCPSUM_BENCH=1 (or run scripts/bench.sh) to run the lean benchmark")
	}
	rounds := 7
	if n, err := strconv.Atoi(os.Getenv("MCPSUM_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	srv, relay := proxyServers(t)
	hello, bare, bigsrv := benchBins(t)
	base := os.Getenv("MCPSUM_BENCH_BASELINE")
	mcpsums := map[string]string{"now": bin.mcpsum}
	variants := []string{"now"}
	if base != "" {
		mcpsums["baseline"] = base
		variants = append(variants, "baseline")
	}

	dir := t.TempDir()
	lock := filepath.Join(dir, "mcp.lock")
	fast := []string{srv, "-versions", "2025-11-25"}
	big := []string{bigsrv, "-tools", "1000"}
	mustLock(t, dir, nil, append([]string{"--name", "fast", "--"}, fast...)...)
	mustLock(t, dir, nil, "--name", "slowstart", "--", srv, "-versions", "2025-11-25", "-start-delay", "1s")
	bigDir := t.TempDir() // a lock holding only the 1,000-tool server
	mustLock(t, bigDir, nil, append([]string{"--name", "big", "--"}, big...)...)
	bigLock := filepath.Join(bigDir, "mcp.lock")
	// The sandbox row: the same server, confined, in a lock of its own.
	sbxDir := t.TempDir()
	mustLock(t, sbxDir, nil, append([]string{"--name", "plain", "--"}, fast...)...)
	mustLock(t, sbxDir, nil, append([]string{"--name", "sbx", "--"}, fast...)...)
	setPolicy(t, sbxDir, "sbx", map[string]any{"sandbox": map[string]any{
		"filesystem": map[string]any{"read": []string{filepath.Dir(srv)}, "write": []string{}},
		"network":    map[string]any{"allow": []string{}},
	}})
	_, _, sbxCode := mcpsum(t, sbxDir, nil, "verify", "--name", "sbx")

	m := &measures{d: map[string][]time.Duration{}, rss: map[string]int64{}}
	run := func(key string, argv ...string) {
		start := time.Now()
		cmd := exec.Command(argv[0], argv[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		m.add(key, time.Since(start))
	}
	for r := 0; r < rounds; r++ {
		// 1. start-up
		run("hello", hello)
		for _, v := range variants {
			run("version/"+v, mcpsums[v], "version")
		}
		// 2. first initialize answered from the lock (server needs 1 s) vs a
		// relay's first initialize of a fast server.
		m.first("relay-init", t, append([]string{relay}, fast...), "")
		for _, v := range variants {
			m.first("proxy-slow-init/"+v, t, []string{mcpsums[v], "proxy", "--lockfile", lock, "--name", "slowstart"}, "")
		}
		// 3. peak RSS with 8 MiB results
		m.bigResults("relay", t, append([]string{relay}, fast...))
		for _, v := range variants {
			m.bigResults("proxy/"+v, t, []string{mcpsums[v], "proxy", "--lockfile", lock, "--name", "fast"})
		}
		// 4. sandbox start: verify of the same server, unconfined and confined
		for _, v := range variants {
			run("verify-plain/"+v, mcpsums[v], "verify", "--lockfile", filepath.Join(sbxDir, "mcp.lock"), "--name", "plain")
			if sbxCode == 0 {
				run("verify-sbx/"+v, mcpsums[v], "verify", "--lockfile", filepath.Join(sbxDir, "mcp.lock"), "--name", "sbx")
			}
		}
		// 5. re-lock of a 1,000-tool server vs a bare client listing it
		run("bare-list", append([]string{bare}, big...)...)
		for _, v := range variants {
			run("relock-big/"+v, mcpsums[v], "lock", "--lockfile", bigLock, "--name", "big")
		}
		// 6. initialize with a 1,000-tool lock vs the server's own answer:
		// the round trip once each process had 500 ms to start, and from exec.
		m.warmInit("direct-big-init", t, big)
		m.first("direct-big-init-cold", t, big, "")
		for _, v := range variants {
			m.warmInit("proxy-big-init/"+v, t, []string{mcpsums[v], "proxy", "--lockfile", bigLock, "--name", "big"})
			m.first("proxy-big-init-cold/"+v, t, []string{mcpsums[v], "proxy", "--lockfile", bigLock, "--name", "big"}, "")
		}
		// 7. first tools/call with 1,000 tools vs a relay
		const call = `{"name":"t0001","arguments":{"text":"x"}}`
		m.first("relay-big-call", t, append([]string{relay}, big...), call)
		for _, v := range variants {
			m.first("proxy-big-call/"+v, t, []string{mcpsums[v], "proxy", "--lockfile", bigLock, "--name", "big"}, call)
		}
		// 8. show of a 1,000-tool lock
		for _, v := range variants {
			run("show-big/"+v, mcpsums[v], "show", "--lockfile", bigLock)
		}
		// 9. loading and checking a 1,000-tool lock, in process
		data, err := os.ReadFile(bigLock)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			start := time.Now()
			if _, err := lockfile.Parse(bigLock, data); err != nil {
				t.Fatal(err)
			}
			m.add("load-big", time.Since(start))
		}
	}

	var b strings.Builder
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "\nlean benchmark: %d interleaved rounds, medians; load average %s", rounds, load)
	fmt.Fprintf(&b, "%-52s %-16s %-16s %-9s %s\n", "row", "mcpsum "+strings.Join(variants, " / "), "floor", "ratio", "goal")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	both := func(key string, f func(string) string) string {
		var s []string
		for _, v := range variants {
			s = append(s, f(key+"/"+v))
		}
		return strings.Join(s, " / ")
	}
	ratios := func(key, floor string) string {
		return both(key, func(k string) string { return fmt.Sprintf("%.2fx", float64(m.med(k))/float64(m.med(floor))) })
	}
	row := func(name, key, floor, floorName, goal string) {
		fmt.Fprintf(&b, "%-52s %-16s %-16s %-9s %s\n", name, both(key, func(k string) string { return ms(m.med(k)) }),
			ms(m.med(floor))+" "+floorName, ratios(key, floor), goal)
	}
	row("start-up: mcpsum version vs hello-world", "version", "hello", "hello", "<= 1.8x")
	row("first initialize from the lock (server needs 1 s)", "proxy-slow-init", "relay-init", "relay", "<= 1.3x")
	fmt.Fprintf(&b, "%-52s %-16s %-16s %-9s %s\n", "proxy peak RSS, 8 MiB results",
		both("proxy", func(k string) string { return fmt.Sprintf("%.1f MiB", float64(m.rss[k])/(1<<20)) }),
		fmt.Sprintf("%.1f MiB relay", float64(m.rss["relay"])/(1<<20)), "", "<= 10 MiB")
	if sbxCode == 0 {
		fmt.Fprintf(&b, "%-52s %-16s %-16s %-9s %s\n", "sandbox start: verify confined minus unconfined",
			both("verify-sbx", func(k string) string {
				return "+" + ms(m.med(k)-m.med(strings.Replace(k, "verify-sbx", "verify-plain", 1)))
			}), both("verify-plain", func(k string) string { return ms(m.med(k)) })+" plain", "", "<= +15 ms")
	} else {
		fmt.Fprintf(&b, "%-52s %s\n", "sandbox start", "n/a: this machine cannot run the sandbox (mcpsum doctor)")
	}
	row("re-lock of a 1,000-tool server vs a bare client", "relock-big", "bare-list", "bare", "<= 2.5x")
	row("proxy initialize, 1,000-tool lock vs the server", "proxy-big-init", "direct-big-init", "server", "<= 2x")
	row("  the same from exec (both start up first)", "proxy-big-init-cold", "direct-big-init-cold", "server", "")
	row("proxy first tools/call, 1,000 tools vs a relay", "proxy-big-call", "relay-big-call", "relay", "<= 2x")
	row("show of a 1,000-tool lock (whole process)", "show-big", "hello", "hello", "<= 30 ms")
	fmt.Fprintf(&b, "%-52s %-16s %-16s %-9s %s\n", "load + integrity check of a 1,000-tool lock", ms(m.med("load-big"))+" (in process)", "", "", "<= 10 ms")
	t.Log(b.String())
}

type measures struct {
	mu  sync.Mutex
	d   map[string][]time.Duration
	rss map[string]int64
}

func (m *measures) add(key string, d time.Duration) {
	m.mu.Lock()
	m.d[key] = append(m.d[key], d)
	m.mu.Unlock()
}

func (m *measures) med(key string) time.Duration {
	d := slices.Clone(m.d[key])
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// first times a fresh process from exec to its answer to initialize (or,
// with call, to the answer to that first tools/call after the handshake).
func (m *measures) first(key string, t *testing.T, argv []string, call string) {
	start := time.Now()
	c := startBench(t, argv)
	c.initialize()
	if call != "" {
		if r := c.call(call); !strings.Contains(string(r), `"result"`) {
			t.Fatalf("%s: the call failed: %s", key, r)
		}
	}
	m.add(key, time.Since(start))
	c.close()
}

// warmInit times the initialize round trip of a process that had 500 ms to
// start up.
func (m *measures) warmInit(key string, t *testing.T, argv []string) {
	c := startBench(t, argv)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	c.initialize()
	m.add(key, time.Since(start))
	c.close()
}

// bigResults records the peak RSS of a process that relays 8 MiB results.
func (m *measures) bigResults(key string, t *testing.T, argv []string) {
	c := startBench(t, argv)
	c.initialize()
	for i := 0; i < 3; i++ {
		if n := len(c.call(`{"name":"big","arguments":{"bytes":8388608}}`)); n < 8<<20 {
			t.Fatalf("%s: an 8 MiB result came back as %d bytes", key, n)
		}
	}
	m.mu.Lock()
	m.rss[key] = max(m.rss[key], peakRSS(c.cmd.Process.Pid))
	m.mu.Unlock()
	c.close()
}

// benchBins returns the hello-world floor, the bare listing client and the
// fast-starting 1,000-tool server, built by TestMain.
func benchBins(t *testing.T) (hello, bare, bigsrv string) {
	t.Helper()
	return bin.hello, bin.bareclient, bin.bigsrv
}
