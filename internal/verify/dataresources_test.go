package verify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// TestWriteTextNamesUnpinnedForDataResources: a server that lists one
// resource per table (server-postgres) got a table; only those resources
// drifted, so verify names policy.unpinned ["resources"] and where to set
// it. A tool that changed as well gets no such hint.
func TestWriteTextNamesUnpinnedForDataResources(t *testing.T) {
	table := func(n string) json.RawMessage {
		return json.RawMessage(`{"uri":"postgres://app@db/` + n + `/schema","mimeType":"application/json","name":"\"` + n + `\" database schema"}`)
	}
	query := json.RawMessage(`{"name":"query","description":"Run a read-only SQL query","inputSchema":{"type":"object"}}`)
	locked := &lockfile.Server{Tools: []json.RawMessage{query}, Resources: []json.RawMessage{table("users")}}
	grown := &lockfile.Server{Tools: []json.RawMessage{query}, Resources: []json.RawMessage{table("users"), table("orders")}}
	want := `add "unpinned": ["resources"] to the "policy" of server "pg" in mcp.lock`
	report := func(observed *lockfile.Server) string {
		rep := &Report{Lockfile: "mcp.lock", Servers: []*ServerResult{Classify("pg", locked, launch.Result{Entry: observed})}}
		var buf bytes.Buffer
		rep.WriteText(&buf, false)
		return buf.String()
	}
	if out := report(grown); !strings.Contains(out, want) {
		t.Errorf("the report does not say %q:\n%s", want, out)
	}
	rep := &Report{Lockfile: "mcp.lock", Servers: []*ServerResult{Classify("pg", locked, launch.Result{Entry: grown})}}
	if j := rep.JSON(1).Servers["pg"]; j == nil || len(j.Hints) != 1 || !strings.Contains(j.Hints[0], want) {
		t.Errorf("--json hints %+v do not say %q", j, want)
	}
	other := &lockfile.Server{Tools: []json.RawMessage{json.RawMessage(`{"name":"query","description":"Run any SQL","inputSchema":{"type":"object"}}`)}, Resources: grown.Resources}
	if out := report(other); strings.Contains(out, "unpinned") {
		t.Errorf("a changed tool too, yet the report suggests policy.unpinned:\n%s", out)
	}
}

// TestAcceptNamesUnpinnedForDataResources: a re-lock that takes in only a
// new table's resource says that policy.unpinned would spare the next one.
func TestAcceptNamesUnpinnedForDataResources(t *testing.T) {
	table := func(n string) json.RawMessage {
		return json.RawMessage(`{"uri":"postgres://app@db/` + n + `/schema","name":"` + n + `"}`)
	}
	locked := &lockfile.Server{Resources: []json.RawMessage{table("users")}}
	now := &lockfile.Server{Resources: []json.RawMessage{table("users"), table("orders")}}
	f := &lockfile.File{Servers: map[string]*lockfile.Server{"pg": locked}}
	var buf bytes.Buffer
	if err := Accept(&buf, false, "mcp.lock", "", f, map[string]*lockfile.Server{"pg": now}); err != nil {
		t.Fatal(err)
	}
	if want := `add "unpinned": ["resources"] to the "policy" of server "pg" in mcp.lock`; !strings.Contains(buf.String(), want) {
		t.Errorf("the re-lock's review does not say %q:\n%s", want, buf.String())
	}
}
