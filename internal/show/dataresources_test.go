package show

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// TestShowNamesUnpinnedForDataResources: resources that look like data the
// server lists live (server-postgres: one per table) get a line naming
// policy.unpinned; once declared, show says they are not pinned instead.
func TestShowNamesUnpinnedForDataResources(t *testing.T) {
	table := func(n string) json.RawMessage {
		return json.RawMessage(`{"uri":"postgres://app@db/` + n + `/schema","name":"` + n + `"}`)
	}
	s := &lockfile.Server{
		Command: []string{"srv"}, EnvPassthrough: []string{}, ProtocolVersion: "2025-11-25",
		ServerInfo: json.RawMessage(`{"name":"s","version":"1"}`), Capabilities: json.RawMessage(`{"resources":{}}`),
		Tools: []json.RawMessage{}, Prompts: []json.RawMessage{}, ResourceTemplates: []json.RawMessage{},
		Resources: []json.RawMessage{table("users"), table("orders")},
	}
	if err := lockfile.NewServer(s); err != nil {
		t.Fatal(err)
	}
	render := func() string {
		f := &lockfile.File{Version: 1, Servers: map[string]*lockfile.Server{"pg": s}}
		var buf bytes.Buffer
		Build(f, []string{"pg"}, "mcp.lock").WriteText(&buf, "mcp.lock", false)
		return buf.String()
	}
	want := `"unpinned": ["resources"]`
	if out := render(); !strings.Contains(out, want) {
		t.Errorf("show does not name %s:\n%s", want, out)
	}
	s.Policy = &lockfile.Policy{Unpinned: []string{"resources"}}
	if out := render(); strings.Contains(out, want) || !strings.Contains(out, "data, not pinned") {
		t.Errorf("declared data, yet show:\n%s", out)
	}
}
