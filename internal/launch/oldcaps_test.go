package launch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// lockDeclaringNone locks argv the way mcpsum did before it declared its
// capability set: the legacy handshake with capabilities {}.
func lockDeclaringNone(t *testing.T, argv []string) *lockfile.Server {
	t.Helper()
	ctx := context.Background()
	entry := &lockfile.Server{Command: argv, EnvPassthrough: []string{}}
	p, cleanup, err := Start("old", entry, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	c := mcpwire.NewClient(mcpwire.NewStdio(p, 0), &mcpwire.ClientOptions{Timeout: 20 * time.Second, DeclareNone: true})
	defer c.Close(stopGrace)
	h, err := mcpwire.Handshake(ctx, c, lockfile.EraLegacy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpwire.ListAll(ctx, c, h)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Entry(argv, nil, h, s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A lock of the real npm server-everything made declaring no capabilities
// (as mcpsum did before) shows the tools it adds for mcpsum's capabilities
// as added; verify's note says exactly that, and names them. A tool that is
// missing from the lock for any other reason gets no such note.
func TestObserveExplainsCapabilityAddedItems(t *testing.T) {
	js, err := filepath.Abs(filepath.Join("..", "..", "e2e", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(js); err != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatalf("server-everything is not installed: run npm ci in e2e/")
		}
		t.Skip("server-everything is not installed: run npm ci in e2e/")
	}
	argv := []string{"node", js}
	old := lockDeclaringNone(t, argv)
	if len(old.Tools) != 13 {
		t.Fatalf("declaring nothing, server-everything lists %d tools, want 13", len(old.Tools))
	}

	var mu sync.Mutex
	var notes []string
	opts := Options{Timeout: 20 * time.Second, Note: func(server, msg string) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, server+": "+msg)
	}}
	now, err := Observe(context.Background(), "everything", old, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(now.Tools) != 17 {
		t.Errorf("observed %d tools, want 17", len(now.Tools))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "matches the lock exactly") || !strings.Contains(notes[0], "review them") || !strings.Contains(notes[0], "tool get-roots-list") ||
		!strings.Contains(notes[0], "tool trigger-sampling-request") || !strings.Contains(notes[0], "re-lock") {
		t.Errorf("notes %q", notes)
	}

	// Drop a tool every client gets from that old lock: now an added item
	// that declaring nothing does not explain. No note.
	var kept []json.RawMessage
	for _, it := range old.Tools {
		if !strings.Contains(string(it), `"name":"echo"`) {
			kept = append(kept, it)
		}
	}
	tampered := *old
	tampered.Tools = kept
	tampered.Digests = lockfile.Digests{}
	if err := lockfile.NewServer(&tampered); err != nil {
		t.Fatal(err)
	}
	notes = nil
	if _, err := Observe(context.Background(), "everything", &tampered, opts); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("a tool missing from the lock was explained away: %q", notes)
	}
}
