package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that lists one resource per table (server-postgres does; the
// go-sdk test server here lists one per file) quarantines as a whole when a
// table is added after locking, its unchanged tools included. A reviewed
// entry that declares resources data (policy.unpinned) verifies with a note
// saying how they changed and that it is not drift, show says so, and through the proxy the
// client gets the server's live resource list, reads the new resource and
// still calls the tools, and a table created while it runs reaches the
// client's list_changed handler, in both client eras (that a changed tool is still drift:
// pkg/lockfile TestUnpinnedResources).
func TestUnpinnedResourcesAreData(t *testing.T) {
	t.Parallel()
	dir, tables := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(tables, "users"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	mustLock(t, dir, nil, "--name", "db", "--", bin.gosrv, "-versions", "2025-11-25", "-resources-dir", tables)
	if err := os.WriteFile(filepath.Join(tables, "orders"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if stdout, _, code := mcpsum(t, dir, nil, "verify"); code != 1 || !strings.Contains(stdout, "probe://table/orders") {
		t.Fatalf("a table added, resources pinned: verify exit %d\n%s", code, stdout)
	}
	lock := filepath.Join(dir, "mcp.lock")
	b, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `      "digests": {`, `      "policy": {"unpinned": ["resources"]},`+"\n"+`      "digests": {`, 1)
	if err := os.WriteFile(lock, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := mcpsum(t, dir, nil, "verify")
	if code != 0 || !strings.Contains(stdout, "db: resources not pinned (policy.unpinned declares them data): changed since the lock (1 added), not drift") {
		t.Fatalf("resources declared data: verify exit %d\n%s", code, stdout)
	}
	if stdout, _, code := mcpsum(t, dir, nil, "show", "--name", "db"); code != 0 || !strings.Contains(stdout, "not pinned    resources") {
		t.Errorf("show: exit %d\n%s", code, stdout)
	}

	for _, era := range []string{"legacy", "modern"} {
		changed := make(chan struct{}, 8)
		cs := goClient(t, proxyCmd(dir, "db"), era, &mcp.ClientOptions{
			ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		listed := func() string {
			res, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range res.Resources {
				uris = append(uris, r.URI)
			}
			return strings.Join(uris, " ")
		}
		if uris := listed(); !strings.Contains(uris, "probe://table/orders") {
			t.Errorf("%s client: the proxy's resources/list %v lacks the table added after locking", era, uris)
		}
		if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "probe://table/orders"}); err != nil || len(rr.Contents) != 1 {
			t.Errorf("%s client: reading the new table: %v %v", era, rr, err)
		}
		if got, err := callJSON(t, cs, "add", map[string]any{"a": 2, "b": 3}); err != nil || !strings.Contains(got, `"sum":5`) {
			t.Errorf("%s client: a tool of the server with a new table: %s %v", era, got, err)
		}
		// A table created while the proxy runs: the server's list_changed
		// reaches the client, and the list it then gets has the table.
		if _, err := callJSON(t, cs, "create_table", map[string]any{"text": "invoices"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Errorf("%s client: no resources list_changed reached it", era)
		}
		if uris := listed(); !strings.Contains(uris, "probe://table/invoices") {
			t.Errorf("%s client: resources after create_table: %s", era, uris)
		}
		cs.Close()
	}
}
