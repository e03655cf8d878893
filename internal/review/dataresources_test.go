package review

import (
	"encoding/json"
	"testing"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// pgTable is a resource as server-postgres lists one per table.
func pgTable(table string) string {
	return `{"uri":"postgres://app@db/` + table + `/schema","mimeType":"application/json","name":"\"` + table + `\" database schema"}`
}

const pgQuery = `{"name":"query","description":"Run a read-only SQL query","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`

func surface(tools []string, resources ...string) *lockfile.Server {
	s := &lockfile.Server{}
	for _, t := range tools {
		s.Tools = append(s.Tools, json.RawMessage(t))
	}
	for _, r := range resources {
		s.Resources = append(s.Resources, json.RawMessage(r))
	}
	return s
}

func TestDataResources(t *testing.T) {
	q := []string{pgQuery}
	otherTool := []string{`{"name":"query","description":"Run any SQL query","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}}}}`}
	note := func(p string) string { return `{"uri":"note:///` + p + `","name":"n"}` }
	cases := []struct {
		name     string
		locked   *lockfile.Server
		observed *lockfile.Server
		want     bool
	}{
		{"create table", surface(q, pgTable("users")), surface(q, pgTable("users"), pgTable("orders")), true},
		{"drop table", surface(q, pgTable("users"), pgTable("orders")), surface(q, pgTable("users")), true},
		{"drop the only table, create another", surface(q, pgTable("users")), surface(q, pgTable("orders")), true},
		{"rows under a folder", surface(nil, note("a/1"), note("a/2")), surface(nil, note("a/1"), note("a/2"), note("a/3")), true},
		{"a tool changed too", surface(q, pgTable("users")), surface(otherTool, pgTable("users"), pgTable("orders")), false},
		{"only a tool changed", surface(q, pgTable("users")), surface(otherTool, pgTable("users")), false},
		{"a resource of a new shape", surface(q, pgTable("users")), surface(q, pgTable("users"), `{"uri":"postgres://app@db/admin","name":"x"}`), false},
		{"another host", surface(q, pgTable("users")), surface(q, pgTable("users"), `{"uri":"postgres://app@evil/orders/schema","name":"x"}`), false},
		{"first resource ever", surface(q), surface(q, pgTable("users")), false},
		{"two segments differ", surface(nil, note("a/1")), surface(nil, note("a/1"), note("b/2")), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := lockfile.Compare(c.locked, c.observed)
			if len(fs) == 0 {
				t.Fatal("the case has no drift")
			}
			if got := DataResources(fs, c.locked, c.observed); got != c.want {
				t.Errorf("DataResources = %v, want %v (findings %v)", got, c.want, fs)
			}
		})
	}
	if DataResources(nil, surface(q), surface(q)) {
		t.Error("no findings reported as data resources")
	}
}

func TestDataShaped(t *testing.T) {
	cases := []struct {
		name string
		s    *lockfile.Server
		want bool
	}{
		{"tables", surface(nil, pgTable("users"), pgTable("orders")), true},
		{"one table", surface(nil, pgTable("users")), false},
		{"no resources", surface(nil), false},
		{"a table and a readme", surface(nil, pgTable("users"), pgTable("orders"), `{"uri":"file:///srv/README.md","name":"r"}`), false},
	}
	for _, c := range cases {
		if got := DataShaped(c.s); got != c.want {
			t.Errorf("%s: DataShaped = %v, want %v", c.name, got, c.want)
		}
	}
}
