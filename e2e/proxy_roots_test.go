//lint:file-ignore SA1019 the proxy bridges the legacy era's roots, deprecated in 2026-07-28; the tests must use them

package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2026-07-28 client in front of the real legacy server-filesystem: the
// roots/list the server sends at start-up, when no call of the client is
// running, is held until the client's first call and asked of the client
// there (input_required), so the server narrows itself to the client's root
// as it does for a legacy client (before, the proxy answered it with an
// empty list and the server kept both folders of its argv). The server
// applies new roots asynchronously, directly too, so the test polls.
// A 2026-07-28
// client that declares no roots still gets both folders.
func TestProxyModernClientStartupRoots(t *testing.T) {
	t.Parallel()
	dir, mine, other, secret, _ := lockedFilesystem(t)
	onlyMine := func(s string) bool { return strings.Contains(s, mine) && !strings.Contains(s, other) }

	cs := goClient(t, proxyCmd(dir, "fs"), "modern", handlers(), &mcp.Root{URI: "file://" + mine, Name: "mine"})
	if got := allowedDirs(t, cs, onlyMine); !onlyMine(got) {
		t.Errorf("a 2026-07-28 client with root %s: allowed %s", mine, got)
	}
	got, err := callJSON(t, cs, "read_text_file", map[string]any{"path": secret})
	if err != nil || !strings.Contains(got, `"isError":true`) || strings.Contains(got, "not for this client") {
		t.Errorf("reading outside the client's root: %s %v", got, err)
	}
	cs.Close()

	bare := goClient(t, proxyCmd(dir, "fs"), "modern", nil)
	both := func(s string) bool { return strings.Contains(s, mine) && strings.Contains(s, other) }
	if got := allowedDirs(t, bare, both); !both(got) {
		t.Errorf("a 2026-07-28 client without roots: allowed %s, want both folders", got)
	}
	bare.Close()
	noLeftovers(t, dir)
}

// A client's first call, made 50 ms, 200 ms or 1 s after it connected
// through the proxy, already runs confined to the client's root in the real
// server-filesystem, in both client eras: the proxy answers the handshake
// from the lock at once, so the server is still starting when the call
// comes, and the call waits until the server's start-up roots/list has been
// answered (before, a legacy client's calls of the first seconds ran against
// every folder of the locked argv). The baseline: the same read made directly
// is refused once the server has the client's roots.
func TestProxyRootsBeforeFirstCall(t *testing.T) {
	t.Parallel()
	dir, mine, _, secret, argv := lockedFilesystem(t)
	root := &mcp.Root{URI: "file://" + mine, Name: "mine"}
	// The baseline: the server itself refuses the read once it has the
	// client's roots (how soon after connecting depends on the machine's
	// load, so it is polled: only the proxy's cases below are timed).
	direct := goClient(t, exec.Command(argv[0], argv[1:]...), "legacy", handlers(), root)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got, err := callJSON(t, direct, "read_text_file", map[string]any{"path": secret})
		if err == nil && strings.Contains(got, `"isError":true`) && !strings.Contains(got, "not for this client") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("directly, the server never confined the read to the client's root: %s %v", got, err)
		}
	}
	direct.Close()
	// server-filesystem applies the roots it was answered asynchronously
	// (it resolves each root's real path while the next message is already
	// read), so even after the proxy released the call only once the
	// server's roots/list was answered, the server may serve it before its
	// new roots are in place, rarely, as it does directly. A case fails
	// when three tries in a row read outside the root: without the proxy's
	// hold every try does.
	for _, era := range []string{"legacy", "modern"} {
		for _, after := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second} {
			via := fmt.Sprintf("%s client through the proxy after %v", era, after)
			var got string
			var err error
			for try := 0; try < 3; try++ {
				cs := goClient(t, proxyCmd(dir, "fs"), era, handlers(), root)
				time.Sleep(after)
				got, err = callJSON(t, cs, "read_text_file", map[string]any{"path": secret})
				cs.Close()
				if err == nil && strings.Contains(got, `"isError":true`) && !strings.Contains(got, "not for this client") {
					break
				}
				t.Logf("%s, try %d: the first call read outside the client's root (the server had not applied its roots yet)", via, try+1)
				got = "read outside: " + got
			}
			if strings.HasPrefix(got, "read outside: ") {
				t.Errorf("%s: the first call read outside the client's root in three tries: %s %v", via, got, err)
			}
		}
	}
	noLeftovers(t, dir)
}
