package review

import (
	"encoding/json"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// FuzzLabelsNeverHide: for any two versions of a tool, every finding has a
// label, and a finding is descriptive only when the two differ in wording
// members alone (stripText equal) and the rest of its labels are none.
func FuzzLabelsNeverHide(f *testing.F) {
	f.Add(readFile, `{"name":"read_text_file","description":"Read it.","inputSchema":{"type":"object"}}`)
	f.Add(readFile, `{"name":"read_text_file","title":"x","description":"Read the complete contents of a file from the file system as text. Only works within allowed directories.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"p"}}},"annotations":{"readOnlyHint":true}}`)
	f.Add(`{"name":"read_text_file","description":"a","inputSchema":{"type":"object","properties":{"description":{"type":"string"}}}}`,
		`{"name":"read_text_file","description":"a","inputSchema":{"type":"object","properties":{"description":{"type":"number"}}}}`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) {
			return
		}
		ka, err1 := lockfile.ItemKey(lockfile.KindTool, json.RawMessage(a))
		kb, err2 := lockfile.ItemKey(lockfile.KindTool, json.RawMessage(b))
		if err1 != nil || err2 != nil || ka != kb {
			return
		}
		if _, err := lockfile.Canonical([]byte(a)); err != nil {
			return
		}
		if _, err := lockfile.Canonical([]byte(b)); err != nil {
			return
		}
		locked, observed := server(nil, a), server(nil, b)
		fs := lockfile.Compare(locked, observed)
		Label(fs, locked, observed)
		for _, fd := range fs {
			if len(fd.Labels) == 0 {
				t.Fatalf("%v: no label", fd)
			}
			if OnlyDescriptive(fd.Labels) {
				o, c := parse([]byte(a)), parse([]byte(b))
				if !equal(stripText(o), stripText(c)) {
					t.Fatalf("descriptive, but more than wording changed:\n%s\n%s", a, b)
				}
			}
		}
	})
}
