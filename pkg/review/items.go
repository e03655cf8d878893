package review

import (
	"encoding/json"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Kinds are the item kinds in the order reviews list them, with the member
// of a server entry that holds them.
var Kinds = []struct{ Kind, Plural string }{
	{lockfile.KindTool, "tools"},
	{lockfile.KindPrompt, "prompts"},
	{lockfile.KindResource, "resources"},
	{lockfile.KindResourceTemplate, "resourceTemplates"},
}

// itemsOf returns the entry's items of one kind.
func itemsOf(s *lockfile.Server, kind string) []json.RawMessage {
	switch kind {
	case lockfile.KindTool:
		return s.Tools
	case lockfile.KindPrompt:
		return s.Prompts
	case lockfile.KindResource:
		return s.Resources
	case lockfile.KindResourceTemplate:
		return s.ResourceTemplates
	}
	return nil
}
