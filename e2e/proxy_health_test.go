package e2e

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// A server that cannot start looks failed to a client's own health check
// (the go-sdk client's connect: its handshake) through the proxy, as it
// does directly, in both client eras; before, the proxy answered the
// handshake from the lock and the client showed the server connected. A
// server that starts still connects.
func TestProxyHealthOfServerThatCannotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "up", "--", bin.gosrv, "-versions", "2025-11-25")
	// Locked with a variable it needs, proxied where it is not set: it
	// exits at start.
	mustLock(t, dir, []string{"E2E_NEEDED=1"}, "--name", "down", "--env", "E2E_NEEDED", "--", bin.gosrv, "-versions", "2025-11-25", "-require-env", "E2E_NEEDED")
	connect := func(cmd *exec.Cmd, era string) error {
		cs, err := dial(cmd, era, nil)
		if err == nil {
			_, err = cs.ListTools(context.Background(), nil)
			cs.Close()
		}
		return err
	}
	if err := connect(exec.Command(bin.gosrv, "-versions", "2025-11-25", "-require-env", "E2E_NEEDED"), "legacy"); err == nil {
		t.Fatal("directly, a server that cannot start connected")
	}
	for _, era := range []string{"legacy", "modern"} {
		if err := connect(proxyCmd(dir, "down"), era); err == nil {
			t.Errorf("%s client: a server that cannot start looked connected through the proxy", era)
		}
		if err := connect(proxyCmd(dir, "up"), era); err != nil {
			t.Errorf("%s client: a server that starts did not connect through the proxy: %v", era, err)
		}
	}
}

// A legacy server sees the client's own clientInfo through the proxy, from
// a legacy client's initialize and from a 2026-07-28 client's _meta, as it
// does directly (before, it saw "mcpsum").
func TestProxyPassesClientInfo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "who", "--", bin.gosrv, "-versions", "2025-11-25", "-whoami")
	for _, era := range []string{"legacy", "modern"} {
		cs := goClient(t, proxyCmd(dir, "who"), era, nil)
		got, err := callJSON(t, cs, "whoami", map[string]any{})
		if err != nil || !strings.Contains(got, `"text":"e2e 1"`) {
			t.Errorf("%s client: the server saw %s %v, want the client's clientInfo e2e 1", era, got, err)
		}
		cs.Close()
	}
}

// TestProxyStartupPerformance measures, interleaved in one run, how long a
// go-sdk client's connect (its handshake) takes directly and through the
// proxy for a server that starts at once, one that needs 1.5 s, and one that
// cannot start (until the connect fails). Figures for docs/performance.md:
//
//	MCPSUM_PROXY_PERF=1 go test ./e2e -run TestProxyStartupPerformance -v
//
// Serial: a measurement; it runs alone, before the parallel tests start.
func TestProxyStartupPerformance(t *testing.T) {
	if os.Getenv("MCPSUM_PROXY_PERF") != "1" {
		t.Skip("set MCPSUM_PROXY_PERF=1 to run")
	}
	dir := t.TempDir()
	mustLock(t, dir, []string{"GOSRV_START_DELAY=0s"}, "--name", "s", "--env", "GOSRV_START_DELAY", "--", bin.gosrv, "-versions", "2025-11-25")
	mustLock(t, dir, []string{"E2E_NEEDED=1"}, "--name", "down", "--env", "E2E_NEEDED", "--", bin.gosrv, "-versions", "2025-11-25", "-require-env", "E2E_NEEDED")
	type mode struct {
		name  string
		cmd   func() *exec.Cmd
		delay string
		fails bool
	}
	direct := func(args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			return exec.Command(bin.gosrv, append([]string{"-versions", "2025-11-25"}, args...)...)
		}
	}
	modes := []mode{
		{"starts at once, direct", direct(), "0s", false},
		{"starts at once, proxy", func() *exec.Cmd { return proxyCmd(dir, "s") }, "0s", false},
		{"starts in 1.5 s, direct", direct(), "1500ms", false},
		{"starts in 1.5 s, proxy", func() *exec.Cmd { return proxyCmd(dir, "s") }, "1500ms", false},
		{"cannot start, direct", direct("-require-env", "E2E_NEEDED"), "0s", true},
		{"cannot start, proxy", func() *exec.Cmd { return proxyCmd(dir, "down") }, "0s", true},
	}
	got := map[string][]time.Duration{}
	for r := 0; r < 5; r++ {
		for _, m := range modes {
			cmd := m.cmd()
			cmd.Env = append(os.Environ(), "GOSRV_START_DELAY="+m.delay)
			start := time.Now()
			cs, err := dial(cmd, "legacy", nil)
			took := time.Since(start)
			if (err != nil) != m.fails {
				t.Fatalf("%s: connect error %v", m.name, err)
			}
			if cs != nil {
				cs.Close()
			}
			got[m.name] = append(got[m.name], took)
		}
	}
	for _, m := range modes {
		d := got[m.name]
		slices.Sort(d)
		t.Logf("%-24s connect median %v (min %v)", m.name, d[len(d)/2].Round(time.Millisecond), d[0].Round(time.Millisecond))
	}
}
