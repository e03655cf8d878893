package lockfile

import (
	"strings"
	"testing"
)

// Locate points at the item, the list for an added item, the field for
// other kinds, and the entry otherwise; lines are those of the file.
func TestLocate(t *testing.T) {
	data := testdata(t, "lockfiles/valid.lock")
	lines := strings.Split(string(data), "\n")
	l := NewLocator(data)
	for _, c := range []struct {
		server, kind, key string
		first             string // text on the region's first line
		firstAfter        string // or on the line after it (an item starts with "{")
	}{
		{"time", KindTool, "get_current_time", "{", `"name": "get_current_time"`},
		{"time", KindTool, "not-locked", `"tools": [`, ""},
		{"fetch", KindPrompt, "fetch", "{", `"name": "fetch"`},
		{"time", KindInstructions, "", `"instructions":`, ""},
		{"time", KindServerInfo, "", `"serverInfo":`, ""},
		{"time", KindEra, "", `"protocolVersion":`, ""},
		{"fetch", "", "", `"fetch": {`, ""},
	} {
		r := l.Locate(c.server, c.kind, c.key)
		if r.StartLine == 0 || r.EndLine < r.StartLine {
			t.Errorf("%+v: region %+v", c, r)
			continue
		}
		first := strings.TrimSpace(lines[r.StartLine-1])
		if !strings.HasPrefix(first, c.first) || c.firstAfter != "" && !strings.Contains(lines[r.StartLine], c.firstAfter) {
			t.Errorf("%s %s %q: line %d is %q", c.server, c.kind, c.key, r.StartLine, first)
		}
	}
	if r := l.Locate("nosuch", KindTool, "x"); r != (Region{}) {
		t.Errorf("unknown server: %+v", r)
	}
	if r := NewLocator([]byte("{")).Locate("time", "", ""); r != (Region{}) {
		t.Errorf("unparsable data: %+v", r)
	}
}
