package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockProxysrv locks proxysrv (through dir/srv.sh) as entry "s" of dir/mcp.lock.
func lockProxysrv(t *testing.T, dir string, args ...string) {
	t.Helper()
	mustLock(t, dir, nil, append([]string{"--name", "s", "--"}, proxysrvScript(t, dir, args...)...)...)
}

// A server that crashes in the middle of a call: the call gets an error
// response (no hang), the proxy exits 3 with the server's last stderr lines,
// escaped, and nothing is left running.
func TestProxyServerCrashMidCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockProxysrv(t, dir, "-versions", "2025-11-25")
	p := startRaw(t, proxyCmd(dir, "s"))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"crash","arguments":{}}}`)
	if m := p.await("1"); !strings.Contains(string(m["error"]), "exited") {
		t.Errorf("crash mid-call: want an error response saying the server exited, got %s", m["error"])
	}
	if code := p.wait(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	errOut := p.stderr.String()
	if !strings.Contains(errOut, `crashing as asked \u001b[31mred\u001b[0m`) || strings.Contains(errOut, "\x1b") {
		t.Errorf("stderr must hold the server's last lines, escaped:\n%s", errOut)
	}
	noLeftovers(t, dir)
}

// A server that never answers: its handshake times out after the start-up
// allowance (1 s, within the proxy's 2 s health window), so the client's
// own initialize gets that error, as a client connecting directly sees the
// server fail, and the proxy exits 3.
func TestProxyServerNeverAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockProxysrv(t, dir)
	proxysrvScript(t, dir, "-never-answer")
	p := startRaw(t, proxyCmd(dir, "s", "--timeout-secs", "1", "--start-timeout-secs", "1"))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := p.await("1"); !strings.Contains(string(m["error"]), "no answer within") {
		t.Errorf("want the handshake's timeout as initialize's error, got %s", m["error"])
	}
	if code := p.wait(); code != 3 {
		t.Errorf("exit code %d, want 3\n%s", code, p.stderr)
	}
	noLeftovers(t, dir)
}

// The client goes away (both pipes closed) with a call in flight: the proxy
// ends the server's process group and exits.
func TestProxyClientDisconnects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockProxysrv(t, dir)
	p := startRaw(t, proxyCmd(dir, "s"))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	p.await("1")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	time.Sleep(100 * time.Millisecond)
	p.pipe.Close()
	start := time.Now()
	p.wait()
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the proxy took %s to end after the client left", d)
	}
	noLeftovers(t, dir)
}

// SIGTERM and SIGINT with a call in flight: the call is answered with an
// error, the server's process group is ended, the proxy exits.
func TestProxySignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			lockProxysrv(t, dir)
			p := startRaw(t, proxyCmd(dir, "s"))
			p.initialize()
			p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
			p.await("1")
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
			time.Sleep(200 * time.Millisecond)
			p.cmd.Process.Signal(sig)
			if m := p.await("2"); !strings.Contains(string(m["error"]), "interrupted") {
				t.Errorf("in-flight call after %v: want an error, got %v", sig, m)
			}
			select {
			case <-p.waited:
			case <-time.After(15 * time.Second):
				t.Fatalf("the proxy did not exit after %v", sig)
			}
			noLeftovers(t, dir)
		})
	}
}

// A 10 MiB result reaches the go-sdk client exactly as it does directly.
func TestProxyBigResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockProxysrv(t, dir)
	args := map[string]any{"bytes": 10 << 20}
	cs := goClient(t, proxyCmd(dir, "s"), "modern", nil)
	got, err := callJSON(t, cs, "big", args)
	if err != nil {
		t.Fatalf("big through the proxy: %v", err)
	}
	cs.Close()
	direct := goClient(t, proxyCmdDirect(dir), "modern", nil)
	want, err := callJSON(t, direct, "big", args)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("10 MiB result differs through the proxy (%d vs %d bytes)", len(got), len(want))
	}
	noLeftoversAfter(t, direct, dir)
}

func noLeftoversAfter(t *testing.T, cs *mcp.ClientSession, dir string) {
	cs.Close()
	noLeftovers(t, dir)
}

// A notification flood to a slow client: every notification arrives, in
// order, and the proxy's memory stays bounded (it stops reading the server
// while the client is not reading; no queue grows).
func TestProxyNotificationFlood(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lockProxysrv(t, dir, "-versions", "2025-11-25")
	p := startRaw(t, proxyCmd(dir, "s"))
	p.initialize()
	const n = 20000
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{"count":%d},"_meta":{"progressToken":"f"}}}`, n))
	seen := 0
	for {
		l, err := p.out.Next()
		if err != nil {
			t.Fatalf("stream ended after %d notifications: %v\n%s", seen, err, p.stderr)
		}
		if strings.Contains(string(l), `"notifications/progress"`) {
			seen++
			if !strings.Contains(string(l), fmt.Sprintf(`"progress":%d,`, seen)) {
				t.Fatalf("notification %d out of order: %.120s", seen, l)
			}
			if seen%2000 == 0 {
				time.Sleep(100 * time.Millisecond) // a slow client
			}
			continue
		}
		if strings.Contains(string(l), `"id":1`) {
			break
		}
	}
	if seen != n {
		t.Errorf("%d of %d notifications arrived", seen, n)
	}
	if hwm := peakRSS(p.cmd.Process.Pid); hwm > 48<<20 {
		t.Errorf("the proxy's peak RSS was %d MiB during the flood", hwm>>20)
	} else {
		t.Logf("proxy peak RSS during a %d-notification flood: %.1f MiB", n, float64(hwm)/(1<<20))
	}
	p.wait()
}

// peakRSS reads VmHWM of a live process (bytes; 0 if unknown).
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Progress and cancellation with the go-sdk client through the proxy:
// progress from real servers of both eras reaches the client, and a
// cancelled call is cancelled on the server.
func TestProxyProgressAndCancel(t *testing.T) {
	t.Parallel()
	targets := []struct {
		name string
		argv func(t *testing.T) []string
		tool string
		args map[string]any
	}{
		{"npm-everything", func(t *testing.T) []string { return []string{"node", npmServer(t, "server-everything")} },
			"trigger-long-running-operation", map[string]any{"duration": 1, "steps": 3}},
		{"mcpgo-everything", func(t *testing.T) []string { return []string{bin.mcpgoEvery} },
			"longRunningOperation", map[string]any{"duration": 1, "steps": 3}},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			dir := t.TempDir()
			mustLock(t, dir, nil, append([]string{"--name", "s", "--"}, tg.argv(t)...)...)
			var progress atomic.Int32
			cs := goClient(t, proxyCmd(dir, "s"), "legacy", &mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
			})
			params := &mcp.CallToolParams{Name: tg.tool, Arguments: tg.args}
			params.SetProgressToken("p1")
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				t.Fatalf("%s: %v", tg.tool, err)
			}
			if progress.Load() == 0 {
				t.Errorf("no progress notification reached the client")
			}
		})
	}
	t.Run("cancel", func(t *testing.T) {
		dir := t.TempDir()
		lockProxysrv(t, dir)
		for _, era := range []string{"legacy", "modern"} {
			cs := goClient(t, proxyCmd(dir, "s"), era, nil)
			// A first call waits for the surface check; a call cancelled
			// while held there never reaches the server at all.
			if _, err := callJSON(t, cs, "add", map[string]any{"a": 1, "b": 2}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
			cancel()
			if err == nil {
				t.Fatalf("%s: slow call was not cancelled", era)
			}
			var got string
			for i := 0; i < 50 && !strings.Contains(got, `"text":"1"`); i++ {
				got, _ = callJSON(t, cs, "cancelled", map[string]any{})
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(got, `"text":"1"`) {
				t.Errorf("%s: the server did not see the cancellation (cancelled count %s)", era, got)
			}
			cs.Close()
		}
		noLeftovers(t, dir)
	})
}

// proxyCmdDirect runs the locked proxysrv script of dir directly (no proxy).
func proxyCmdDirect(dir string) *exec.Cmd {
	return exec.Command("sh", dir+"/srv.sh")
}
