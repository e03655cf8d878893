package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"golang.org/x/sys/unix"
)

// The proxy grows the pipe from its server and the one to its client to
// 256 KiB at the session's first line longer than its window, so a long
// result moves in a quarter of the reads, writes and wake-ups per MiB
// (issue 38: structuredContent rows through the proxy; docs/performance.md);
// a session of small messages keeps the kernel's default (64 KiB).
func TestProxyLongLineGrowsPipes(t *testing.T) {
	t.Parallel()
	srv, _ := proxyServers(t)
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "fast", "--", srv, "-fake-fast-big")
	cmd := exec.Command(bin.mcpsum, "proxy", "--lockfile", filepath.Join(dir, "mcp.lock"), "--name", "fast")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	lines := mcpwire.NewLineReader(out, 16<<20)
	id := 0
	call := func(method, params string) {
		id++
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		want := fmt.Sprintf(`"id":%d}`, id)
		for {
			l, err := lines.Next()
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(string(l), want) || strings.Contains(string(l[:min(len(l), 40)]), fmt.Sprintf(`"id":%d,`, id)) {
				return
			}
		}
	}
	pipeSize := func(f *os.File) int {
		t.Helper()
		n, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	serverOut := func() *os.File { // the server's stdout, opened through /proc
		t.Helper()
		kids, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
		if err != nil || len(strings.Fields(string(kids))) == 0 {
			// the server may have been started by another thread of the proxy
			tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", cmd.Process.Pid))
			for _, tk := range tasks {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", cmd.Process.Pid, tk.Name()))
				if f := strings.Fields(string(b)); len(f) > 0 {
					kids = b
					break
				}
			}
		}
		pids := strings.Fields(string(kids))
		if len(pids) != 1 {
			t.Fatalf("the proxy's children: %q, want the one server", kids)
		}
		f, err := os.Open("/proc/" + pids[0] + "/fd/1")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	fmt.Fprint(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call("tools/call", `{"name":"rows","arguments":{"bytes":1000}}`)
	so := serverOut()
	if c, s := pipeSize(out.(*os.File)), pipeSize(so); c >= 256<<10 || s >= 256<<10 {
		t.Fatalf("after small results: pipe to the client %d bytes, from the server %d, want the default (under 262144) for both", c, s)
	}
	call("tools/call", `{"name":"rows","arguments":{"bytes":1048576}}`)
	if c, s := pipeSize(out.(*os.File)), pipeSize(so); c < 256<<10 || s < 256<<10 {
		t.Fatalf("after a long result: pipe to the client %d bytes, from the server %d, want at least 262144 for both", c, s)
	}
}
