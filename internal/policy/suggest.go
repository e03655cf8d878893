package policy

import (
	"sort"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Reason says why a tool was labelled; Tool is as the server named it.
type Reason struct {
	Tool   string
	Source bool
	Sink   bool
	Why    string
}

// Suggestion is a starting taint policy for one server.
type Suggestion struct {
	Taint   lockfile.Taint
	Reasons []Reason
}

// annotations are the hints a server declares (untrusted).
type annotations struct {
	ReadOnly  *bool
	OpenWorld *bool
}

// hints reads a tool's annotations with exact keys: "READONLYHINT" or
// "ReadOnlyHint" is not readOnlyHint, a hint that is not exactly true or
// false counts as missing, and so does every hint of an item or annotations
// object with a repeated key (which one a client reads depends on it).
func hints(item []byte) annotations {
	f, err := jsonscan.Fields(item, "annotations")
	if err != nil || f[0] == nil {
		return annotations{}
	}
	h, err := jsonscan.Fields(f[0], "readOnlyHint", "openWorldHint")
	if err != nil {
		return annotations{}
	}
	return annotations{ReadOnly: boolHint(h[0]), OpenWorld: boolHint(h[1])}
}

func boolHint(v []byte) *bool {
	switch string(v) {
	case "true":
		t := true
		return &t
	case "false":
		f := false
		return &f
	}
	return nil
}

// Suggest labels tools from the server's own annotations, conservatively: a
// missing hint counts as "may reach the outside world" (openWorldHint
// defaults to true) and "may write" (readOnlyHint defaults to false).
//
//   - source: a tool that may reach the outside world, because its results
//     may carry text an attacker controls; and "resources:*" when the server
//     has resources or templates, whose contents are outside text too.
//   - sink: a tool that may write, or may reach the outside world (a URL or
//     query can carry data out).
//
// Only a tool that declares both readOnlyHint:true and openWorldHint:false is
// left unlabelled. The hints are the server's claims; the result is for a
// person to review, never applied by mcpsum on its own.
func Suggest(s *lockfile.Server) Suggestion {
	out := Suggestion{Taint: lockfile.Taint{Sources: []string{}, Sinks: []string{}}}
	for _, raw := range s.Tools {
		name, err := lockfile.ItemKey(lockfile.KindTool, raw)
		if err != nil {
			continue
		}
		a := hints(raw) // unreadable hints count as missing
		openWorld := a.OpenWorld == nil || *a.OpenWorld
		readOnly := a.ReadOnly != nil && *a.ReadOnly
		r := Reason{Tool: name, Source: openWorld, Sink: openWorld || !readOnly}
		switch {
		case openWorld && a.OpenWorld == nil:
			r.Why = "no openWorldHint: may reach the outside world"
		case openWorld:
			r.Why = "openWorldHint: true"
		case !readOnly && a.ReadOnly == nil:
			r.Why = "no readOnlyHint: may write"
		case !readOnly:
			r.Why = "readOnlyHint: false"
		default:
			r.Why = "declares readOnlyHint: true and openWorldHint: false"
		}
		if r.Source {
			out.Taint.Sources = append(out.Taint.Sources, name)
		}
		if r.Sink {
			out.Taint.Sinks = append(out.Taint.Sinks, name)
		}
		out.Reasons = append(out.Reasons, r)
	}
	if len(s.Resources)+len(s.ResourceTemplates) > 0 {
		out.Taint.Sources = append(out.Taint.Sources, lockfile.AllResources)
	}
	sort.Strings(out.Taint.Sources)
	sort.Strings(out.Taint.Sinks)
	return out
}
