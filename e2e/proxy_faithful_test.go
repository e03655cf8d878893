package e2e

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
)

// A long result (streamed through the tracker, over 256 KiB) reaches the
// client byte for byte as the server wrote it, but for its id: the client's
// own (the proxy maps ids), written last. The proxy writes the id after the
// result on purpose: a streamed line it has to cut (a server stalling
// mid-line, broken JSON, over the line limit) then still ends as valid JSON
// under an id no client uses, never as a truncated answer under the
// client's id (docs/proxy.md). From the go-sdk server (text) and from
// proxytest's fast server (structuredContent rows of small members, the
// tracker's fast path).
func TestProxyStreamedLineFaithful(t *testing.T) {
	t.Parallel()
	srv, _ := proxyServers(t)
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "sdk", "--", srv, "-versions", "2025-11-25")
	mustLock(t, dir, nil, "--name", "fast", "--", srv, "-fake-fast-big")
	lock := filepath.Join(dir, "mcp.lock")
	for _, c := range []struct{ name, tool string }{{"sdk", "big"}, {"fast", "rows"}, {"fast", "big"}} {
		argv := map[string][]string{"sdk": {srv, "-versions", "2025-11-25"}, "fast": {srv, "-fake-fast-big"}}[c.name]
		params := fmt.Sprintf(`{"name":%q,"arguments":{"bytes":%d}}`, c.tool, 1<<20)
		line := func(argv ...string) []byte {
			bc := startBench(t, argv)
			defer bc.close()
			bc.initialize()
			return bc.call(params) // id 2 from either
		}
		server := line(argv...)
		client := line(bin.mcpsum, "proxy", "--lockfile", lock, "--name", c.name)
		const front, back = `{"jsonrpc":"2.0","id":2,"result":`, `,"id":2}`
		if len(server) < 1<<20 || !bytes.HasPrefix(server, []byte(front)) {
			t.Fatalf("%s %s: the server's line is not what the test expects: %.80q", c.name, c.tool, server)
		}
		want := append([]byte(`{"jsonrpc":"2.0","result":`), server[len(front):len(server)-1]...)
		want = append(want, back...)
		if !bytes.Equal(client, want) {
			i := 0
			for i < min(len(client), len(want)) && client[i] == want[i] {
				i++
			}
			t.Errorf("%s %s: the proxy's line (%d bytes) differs from the server's (%d bytes) at byte %d: %.60q, want %.60q",
				c.name, c.tool, len(client), len(server), i, client[i:], want[i:])
		}
	}
}
