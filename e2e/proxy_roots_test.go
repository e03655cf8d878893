//lint:file-ignore SA1019 the proxy bridges the legacy era's roots, deprecated in 2026-07-28; the tests must use them

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	dir := t.TempDir()
	mine, other := t.TempDir(), t.TempDir()
	secret := filepath.Join(other, "secret.txt")
	if err := os.WriteFile(secret, []byte("not for this client"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustLock(t, dir, nil, "--name", "fs", "--", "node", npmServer(t, "server-filesystem"), mine, other)
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
