// Package reviewtest holds what tests of review, verify and locker share:
// the real lockfiles of the official npm servers (2026.1 and 2026.8, locked
// by mcpsum from the real packages) and the published tool-poisoning
// patterns as edits of the real 2026.8 surface, each with the labels a
// reviewer should see. Imported from _test.go files only.
package reviewtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Dir is internal/review/testdata.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// Bump returns the real lockfiles before and after the bump (2026.1 and
// 2026.8) and the path of the older one.
func Bump(t testing.TB) (old, cur *lockfile.File, oldPath string) {
	t.Helper()
	oldPath = filepath.Join(Dir(), "npm-bump", "2026.1.lock")
	return Load(t, oldPath), Load(t, filepath.Join(Dir(), "npm-bump", "2026.8.lock")), oldPath
}

// Load reads and parses a lockfile (digests checked).
func Load(t testing.TB, path string) *lockfile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := lockfile.Parse(filepath.Base(path), data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Case is one poisoning pattern: an edit of one string (or value) of a real
// tool, and the labels the change alone gets (2026.8 against the poisoned
// 2026.8), most dangerous first.
type Case struct {
	Name, Server, Tool string
	// Path is the member to edit, dot-separated ("inputSchema.properties.a.description").
	Path string
	// Replace is [old, new]: old must occur in the string at Path.
	Replace []string
	// Set, when Replace is empty, is the new value at Path.
	Set    any
	Labels []string
}

// Cases are the poisoning patterns of testdata/poison.json.
func Cases(t testing.TB) []Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Dir(), "poison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []Case
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// Poison returns a copy of f in which c's edit was made.
func Poison(t testing.TB, f *lockfile.File, c Case) *lockfile.File {
	t.Helper()
	out := *f
	out.Servers = map[string]*lockfile.Server{}
	for n, s := range f.Servers {
		out.Servers[n] = s
	}
	s := *f.Servers[c.Server]
	s.Tools = slices.Clone(s.Tools)
	i := slices.IndexFunc(s.Tools, func(raw json.RawMessage) bool {
		k, _ := lockfile.ItemKey(lockfile.KindTool, raw)
		return k == c.Tool
	})
	if i < 0 {
		t.Fatalf("%s: no tool %q in server %q", c.Name, c.Tool, c.Server)
	}
	raw, err := edit(s.Tools[i], c)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	s.Tools[i] = raw
	out.Servers[c.Server] = &s
	return &out
}

func edit(raw json.RawMessage, c Case) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	parts := strings.Split(c.Path, ".")
	m, _ := v.(map[string]any)
	for _, p := range parts[:len(parts)-1] {
		if m, _ = m[p].(map[string]any); m == nil {
			return nil, fmt.Errorf("no object at %q", p)
		}
	}
	last := parts[len(parts)-1]
	if len(c.Replace) == 2 {
		s, _ := m[last].(string)
		if !strings.Contains(s, c.Replace[0]) {
			return nil, fmt.Errorf("%q is not in %q", c.Replace[0], s)
		}
		m[last] = strings.Replace(s, c.Replace[0], c.Replace[1], 1)
	} else {
		m[last] = c.Set
	}
	return json.Marshal(v)
}

// FindingOf returns the finding of fs about c's tool.
func FindingOf(t testing.TB, fs []lockfile.Finding, c Case) lockfile.Finding {
	t.Helper()
	for _, f := range fs {
		if f.Kind == lockfile.KindTool && f.Name == c.Tool {
			return f
		}
	}
	t.Fatalf("%s: no finding about tool %q", c.Name, c.Tool)
	return lockfile.Finding{}
}
