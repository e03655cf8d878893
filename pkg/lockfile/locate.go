package lockfile

import (
	"github.com/mcpsum/mcpsum/internal/jsonc"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// Region is where a part of a server entry is written in a lockfile: 1-based
// lines, inclusive. A zero Region means the server is not in the file.
type Region struct{ StartLine, EndLine int }

// fieldOfKind is the entry field a non-item finding kind is about.
var fieldOfKind = map[string]string{
	KindInstructions:      "instructions",
	KindEra:               "protocolVersion",
	KindVersionDropped:    "protocolVersion",
	KindOAuthIssuer:       "oauth",
	KindOAuthResource:     "oauth",
	KindOAuthScopes:       "oauth",
	KindServerInfo:        "serverInfo",
	KindCapabilities:      "capabilities",
	KindProtocolVersion:   "protocolVersion",
	KindSupportedVersions: "supportedVersions",
}

// Locator finds lines in one lockfile's bytes (parsed once).
type Locator struct {
	root  *jsonc.Value // nil when data does not parse
	lines *jsonc.Lines
}

// NewLocator prepares data (a lockfile's bytes) for Locate.
func NewLocator(data []byte) *Locator {
	root, _ := jsonc.Parse(data)
	return &Locator{root: root, lines: jsonc.NewLines(data)}
}

// Locate finds the most specific place a finding points at: the item of
// kind whose key is key; else (an added item, which the lock does not hold)
// the kind's list; for other kinds their field; for kind "" the server's
// entry. It falls back to the server's entry, and returns a zero Region when
// the file holds no such server.
func (l *Locator) Locate(server, kind, key string) Region {
	root := l.root
	if root == nil || root.Kind != jsonc.Object {
		return Region{}
	}
	servers, _ := root.Get("servers")
	if servers == nil || servers.Kind != jsonc.Object {
		return Region{}
	}
	var entry *jsonc.Value
	entryStart := 0
	for _, m := range servers.Members {
		if m.Key == server {
			entry, entryStart = m.Value, m.KeyStart
		}
	}
	if entry == nil {
		return Region{}
	}
	region := func(start, end int) Region {
		return Region{l.lines.Line(start), l.lines.Line(max(end-1, start))}
	}
	whole := region(entryStart, entry.End)
	if i, ok := mcpspec.KindIndex(kind); ok {
		list, _ := entry.Get(mcpspec.Kinds[i].Field)
		if list == nil || list.Kind != jsonc.Array {
			return whole
		}
		for _, it := range list.Elems {
			if k, _ := it.Get(mcpspec.Kinds[i].Key); k != nil && k.Kind == jsonc.String && k.Str == key {
				return region(it.Start, it.End)
			}
		}
		return region(list.Start, list.End)
	}
	if field, ok := fieldOfKind[kind]; ok {
		for _, m := range entry.Members {
			if m.Key == field {
				return region(m.KeyStart, m.End)
			}
		}
	}
	return whole
}
