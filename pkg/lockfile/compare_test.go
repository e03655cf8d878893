package lockfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

func acmeServer(t *testing.T) *Server {
	t.Helper()
	return mustParse(t, "modern.lock", testdata(t, "lockfiles/modern.lock")).Servers["acme"]
}

// setItem replaces (or with raw == "" removes) the item with key in kind.
func setItem(t *testing.T, s *Server, kind, key, raw string) {
	t.Helper()
	i, _ := mcpspec.KindIndex(kind)
	var out []json.RawMessage
	for _, it := range *s.items(i) {
		if k, _ := itemKey(it, mcpspec.Kinds[i].Key); k != key {
			out = append(out, it)
		}
	}
	if raw != "" {
		out = append(out, json.RawMessage(raw))
	}
	*s.items(i) = out
}

func TestCompare(t *testing.T) {
	readFile := `{"name":"read_file","title":"Read file","description":"Read a file from the workspace.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"Path relative to the workspace root"}},"required":["path"]},"outputSchema":{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`
	type want struct {
		class  Class
		kind   string
		name   string
		change string
		fields []string
	}
	tests := []struct {
		name string
		edit func(t *testing.T, o *Server)
		want []want
	}{
		{"identical", func(t *testing.T, o *Server) {}, nil},
		{"item order and whitespace are not drift", func(t *testing.T, o *Server) {
			o.Tools[0], o.Tools[1] = o.Tools[1], o.Tools[0]
			var b bytes.Buffer
			json.Indent(&b, o.Tools[0], "", "    ")
			o.Tools[0] = b.Bytes()
			// Key order inside an item is not drift either.
			setItem(t, o, KindTool, "read_file", `{"title":"Read file","name":"read_file","description":"Read a file from the workspace.","inputSchema":{"required":["path"],"type":"object","properties":{"path":{"type":"string","description":"Path relative to the workspace root"}}},"outputSchema":{"type":"object","properties":{"content":{"type":"string"}},"required":["content"]},"annotations":{"openWorldHint":false,"readOnlyHint":true}}`)
		}, nil},
		{"tool changed: description and inputSchema", func(t *testing.T, o *Server) {
			setItem(t, o, KindTool, "read_file", strings.Replace(strings.Replace(readFile, "from the workspace.", "from anywhere.", 1), `"required":["path"]},"output`, `"required":[]},"output`, 1))
		}, []want{{Definitional, KindTool, "read_file", Changed, []string{"description", "inputSchema"}}}},
		{"tool field added", func(t *testing.T, o *Server) {
			setItem(t, o, KindTool, "read_file", strings.Replace(readFile, `{"name"`, `{"icons":[],"name"`, 1))
		}, []want{{Definitional, KindTool, "read_file", Changed, []string{"icons"}}}},
		{"tool renamed", func(t *testing.T, o *Server) {
			setItem(t, o, KindTool, "read_file", "")
			setItem(t, o, KindTool, "read_file2", strings.Replace(readFile, `"read_file"`, `"read_file2"`, 1))
		}, []want{{Definitional, KindTool, "read_file", Removed, nil}, {Definitional, KindTool, "read_file2", Added, nil}}},
		{"prompt, resource and template", func(t *testing.T, o *Server) {
			setItem(t, o, KindPrompt, "summarize", "")
			setItem(t, o, KindResource, "file:///srv/workspace/NEW.md", `{"uri":"file:///srv/workspace/NEW.md","name":"NEW.md"}`)
			setItem(t, o, KindResourceTemplate, "file:///srv/workspace/{+path}", `{"uriTemplate":"file:///srv/workspace/{+path}","name":"workspace-file"}`)
		}, []want{{Definitional, KindPrompt, "summarize", Removed, nil},
			{Definitional, KindResource, "file:///srv/workspace/NEW.md", Added, nil},
			{Definitional, KindResourceTemplate, "file:///srv/workspace/{+path}", Changed, []string{"description"}}}},
		{"instructions changed", func(t *testing.T, o *Server) {
			s := "All paths are relative to /."
			o.Instructions = &s
		}, []want{{Definitional, KindInstructions, "", Changed, nil}}},
		{"instructions removed", func(t *testing.T, o *Server) { o.Instructions = nil },
			[]want{{Definitional, KindInstructions, "", Removed, nil}}},
		{"era: now legacy", func(t *testing.T, o *Server) {
			o.SupportedVersions = nil
			o.ProtocolVersion = "2025-11-25"
		}, []want{{Definitional, KindEra, "", Changed, nil},
			{Informational, KindProtocolVersion, "", Changed, nil},
			{Informational, KindSupportedVersions, "", Removed, nil}}},
		{"locked version dropped", func(t *testing.T, o *Server) {
			o.SupportedVersions = []string{"2026-12-01"}
			o.ProtocolVersion = "2026-12-01"
		}, []want{{Definitional, KindVersionDropped, "", Removed, nil},
			{Informational, KindProtocolVersion, "", Changed, nil},
			{Informational, KindSupportedVersions, "", Changed, nil}}},
		{"supportedVersions reordered is not drift", func(t *testing.T, o *Server) {
			o.SupportedVersions = []string{"2025-11-25", "2026-07-28"}
		}, nil},
		{"supportedVersions grew", func(t *testing.T, o *Server) {
			o.SupportedVersions = append(o.SupportedVersions, "2026-12-01")
		}, []want{{Informational, KindSupportedVersions, "", Changed, nil}}},
		{"serverInfo and capabilities", func(t *testing.T, o *Server) {
			o.ServerInfo = json.RawMessage(`{"name":"acme-files","version":"2.4.2"}`)
			o.Capabilities = json.RawMessage(`{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true}}`)
		}, []want{{Informational, KindServerInfo, "", Changed, nil}, {Informational, KindCapabilities, "", Changed, nil}}},
		{"command and env are not surface drift", func(t *testing.T, o *Server) {
			o.Command = []string{"other"}
			o.EnvPassthrough = nil
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locked, observed := acmeServer(t), acmeServer(t)
			tt.edit(t, observed)
			got := Compare(locked, observed)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d: %v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Class != w.class || g.Kind != w.kind || g.Name != w.name || g.Change != w.change || !reflect.DeepEqual(g.Fields, w.fields) {
					t.Errorf("finding %d = %+v, want %+v", i, g, w)
				}
				if g.Locked == g.Observed {
					t.Errorf("finding %d: locked and observed are equal (%q)", i, g.Locked)
				}
			}
			if HasDefinitional(got) != (len(tt.want) > 0 && tt.want[0].class == Definitional) {
				t.Error("HasDefinitional disagrees")
			}
			if again := Compare(locked, observed); !reflect.DeepEqual(again, got) {
				t.Error("Compare is not deterministic")
			}
			// The proxy's digest comparison finds exactly the same drift
			// once the observed entry has its digests (NewServer; a live
			// surface has no policy).
			observed.Policy = nil
			if err := NewServer(observed); err != nil {
				t.Fatal(err)
			}
			if dg := CompareDigests(locked, observed); !reflect.DeepEqual(dg, got) {
				t.Errorf("CompareDigests = %v\nCompare       = %v", dg, got)
			}
		})
	}
}

func TestCompareDetails(t *testing.T) {
	locked, observed := acmeServer(t), acmeServer(t)
	observed.SupportedVersions = []string{"2026-12-01"}
	observed.ProtocolVersion = "2026-12-01"
	setItem(t, observed, KindTool, "evil\u202etool", `{"name":"evil\u202etool"}`)
	got := Compare(locked, observed)
	if f := got[0]; f.Locked != "2026-07-28" || f.Observed != `["2026-12-01"]` {
		t.Errorf("version dropped: %+v", f)
	}
	var added Finding
	for _, f := range got {
		if f.Change == Added {
			added = f
		}
	}
	if d, _ := Digest([]byte(`{"name":"evil\u202etool"}`)); added.Observed != d || added.Locked != "" {
		t.Errorf("an added item carries its digest: %+v", added)
	}
	if s := added.String(); !strings.Contains(s, `tool "evil\u202etool" added`) || strings.ContainsRune(s, '\u202e') {
		t.Errorf("String must quote server text: %q", s)
	}
	if got[0].Class.String() != "definitional" || Informational.String() != "informational" {
		t.Error("Class names")
	}
}

// BenchmarkCompare1000Tools compares a 1,000-tool lock with an unchanged
// live surface, as the proxy's drift check does on every check.
func BenchmarkCompare1000Tools(b *testing.B) {
	locked, observed := syntheticServer(1000), syntheticServer(1000)
	if err := NewServer(locked); err != nil {
		b.Fatal(err)
	}
	if err := NewServer(observed); err != nil {
		b.Fatal(err)
	}
	b.Run("content", func(b *testing.B) {
		for b.Loop() {
			if len(Compare(locked, observed)) != 0 {
				b.Fatal("drift")
			}
		}
	})
	b.Run("digests", func(b *testing.B) {
		for b.Loop() {
			if len(CompareDigests(locked, observed)) != 0 {
				b.Fatal("drift")
			}
		}
	})
}
