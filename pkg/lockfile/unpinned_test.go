package lockfile

import (
	"strings"
	"testing"
)

// A reviewer may declare resources and resource templates data that is not
// pinned (policy.unpinned): a table added to server-postgres (one resource
// per table) is then no drift, while a changed tool still is; tools and
// prompts can never be declared so; the field survives Marshal and re-lock.
func TestUnpinnedResources(t *testing.T) {
	locked := acmeServer(t)
	observed := acmeServer(t)
	setItem(t, observed, KindResource, "postgres://db/new_table/schema", `{"uri":"postgres://db/new_table/schema","name":"\"new_table\" database schema"}`)
	setItem(t, observed, KindResourceTemplate, "db://{table}", `{"uriTemplate":"db://{table}","name":"t"}`)
	if err := NewServer(observed); err != nil {
		t.Fatal(err)
	}
	if got := Compare(locked, observed); len(got) != 2 {
		t.Fatalf("pinned: want the added resource and template as drift, got %v", got)
	}
	locked.Policy.Unpinned = []string{"resources"}
	if got := CompareDigests(locked, observed); len(got) != 1 || got[0].Kind != KindResourceTemplate {
		t.Errorf("resources unpinned: want only the template's drift, got %v", got)
	}
	locked.Policy.Unpinned = []string{"resources", "resourceTemplates"}
	if got := Compare(locked, observed); len(got) != 0 {
		t.Errorf("both unpinned: want no drift, got %v", got)
	}
	setItem(t, observed, KindTool, "read_file", `{"name":"read_file","description":"now different"}`)
	if err := NewServer(observed); err != nil {
		t.Fatal(err)
	}
	if got := Compare(locked, observed); len(got) != 1 || got[0].Kind != KindTool || got[0].Class != Definitional {
		t.Errorf("a changed tool with resources unpinned: %v", got)
	}

	f := &File{Servers: map[string]*Server{"acme": locked}}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"unpinned": [`) {
		t.Fatalf("policy.unpinned not written:\n%s", data)
	}
	back := mustParse(t, "mcp.lock", data).Servers["acme"]
	if !back.IsUnpinned("resources") || !back.IsUnpinned("resourceTemplates") || back.IsUnpinned("tools") {
		t.Errorf("read back: %v", back.Policy.Unpinned)
	}
	renewed := acmeServer(t)
	renewed.Policy = nil
	KeepPolicy(back, renewed)
	if !renewed.IsUnpinned("resources") {
		t.Error("a re-lock dropped policy.unpinned")
	}
	for _, bad := range []string{`"tools"`, `"prompts"`, `"resources", "resources"`} {
		text := strings.Replace(string(data), `"resources",`+"\n", bad+`, "resourceTemplates",`+"\n", 1)
		text = strings.Replace(text, `"unpinned": [`+"\n"+`          "resources",`, `"unpinned": [`+bad+",", 1)
		_, err := Parse("mcp.lock", []byte(text))
		if fe := asFormat(t, err); !strings.Contains(fe.Error(), "policy.unpinned") || !strings.Contains(fe.Error(), "only resources and resourceTemplates") {
			t.Errorf("unpinned %s: %v", bad, fe)
		}
	}
}
