package review

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Shadowing rules: ids are stable (SARIF rule "mcpsum/" + id).
const (
	// RuleToolShadowing: two servers of one lock offer a tool (or prompt)
	// of the same name, of names that look alike, or of names that differ
	// only in case and separators. A client loads them into one context.
	RuleToolShadowing = "tool-shadowing"
	// RuleCrossReference: a server's text (instructions, a description, a
	// schema) names a tool of another server: one server steering the
	// model's use of another's tools.
	RuleCrossReference = "cross-reference"
)

// Shadow is one shadowing finding between two servers of a lock.
type Shadow struct {
	Rule string
	Kind string // lockfile.KindTool or KindPrompt
	// Servers: for tool-shadowing the two servers (sorted); for
	// cross-reference the server whose text names, then the one named.
	Servers [2]string
	// Names: for tool-shadowing the two names; for cross-reference the
	// place of the text (`tool "x" description`, "instructions") and the
	// name it mentions.
	Names [2]string
	// How, for tool-shadowing: "have the same name", "look alike", "differ
	// only in case or separators", or "extend the well-known tool name
	// \"read_file\"" (Names[1] is a well-known tool, Names[0] wraps it).
	How string
}

// String is the finding for people; server text is escaped (%+q).
func (s Shadow) String() string {
	if s.Rule == RuleCrossReference {
		return fmt.Sprintf("server %+q names %s %+q of server %+q (in its %s): text of one server steering the model to another server's %s",
			s.Servers[0], s.Kind, s.Names[1], s.Servers[1], s.Names[0], s.Kind)
	}
	consequence := "a client that loads both cannot tell them apart"
	if strings.HasPrefix(s.How, "extend") {
		consequence = "a model asked for the well-known tool may pick the other"
	}
	return fmt.Sprintf("%s %+q of server %+q and %+q of server %+q %s: %s",
		s.Kind, s.Names[0], s.Servers[0], s.Names[1], s.Servers[1], s.How, consequence)
}

// Involves reports whether server is one of the finding's two.
func (s Shadow) Involves(server string) bool { return s.Servers[0] == server || s.Servers[1] == server }

// Shadowing lists the shadowing between the servers of one lock, each pair
// once, in a fixed order. Only findings that involve a server for which
// keep returns true are listed (keep nil: all).
func Shadowing(servers map[string]*lockfile.Server, keep func(server string) bool) []Shadow {
	if len(servers) < 2 {
		return nil // shadowing takes two servers
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Shadow
	wanted := func(a, b string) bool { return keep == nil || keep(a) || keep(b) }
	for _, kind := range []string{lockfile.KindTool, lockfile.KindPrompt} {
		out = append(out, collisions(servers, names, kind, wanted)...)
	}
	out = append(out, crossReferences(servers, names, wanted)...)
	return out
}

type owned struct{ server, name string }

// fold is the form two names share when a model could take one for the
// other: look-alike letters mapped, case and separators dropped.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("_-. ", r) {
			return -1
		}
		return r
	}, strings.ToLower(lookalike.Skeleton(name)))
}

func collisions(servers map[string]*lockfile.Server, names []string, kind string, wanted func(a, b string) bool) []Shadow {
	groups := map[string][]owned{}
	var order []string
	for _, sn := range names {
		for _, it := range servers[sn].Items(kind) {
			key, err := lockfile.ItemKey(kind, it)
			if err != nil {
				continue
			}
			f := fold(key)
			if _, ok := groups[f]; !ok {
				order = append(order, f)
			}
			groups[f] = append(groups[f], owned{sn, key})
		}
	}
	slices.Sort(order)
	var out []Shadow
	for _, f := range order {
		g := groups[f]
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				a, b := g[i], g[j]
				if a.server == b.server || !wanted(a.server, b.server) {
					continue // within one server: the per-server look-alike check
				}
				how := "differ only in case or separators"
				switch {
				case a.name == b.name:
					how = "have the same name"
				case lookalike.Skeleton(a.name) == lookalike.Skeleton(b.name):
					how = "look alike"
				}
				out = append(out, Shadow{Rule: RuleToolShadowing, Kind: kind, Servers: [2]string{a.server, b.server}, Names: [2]string{a.name, b.name}, How: how})
			}
		}
	}
	return append(out, wrappers(kind, groups, order, wanted)...)
}

// wrappers lists names that wrap a well-known tool of another server
// ("safe_read_file", "readFileV2" next to the filesystem server's
// read_file): a model asked to read a file may pick either.
func wrappers(kind string, groups map[string][]owned, order []string, wanted func(a, b string) bool) []Shadow {
	var out []Shadow
	for _, wk := range wellKnownTools {
		fw := fold(wk)
		for _, known := range groups[fw] {
			for _, f := range order {
				if f == fw || !strings.HasPrefix(f, fw) && !strings.HasSuffix(f, fw) {
					continue
				}
				for _, o := range groups[f] {
					if o.server != known.server && wanted(o.server, known.server) {
						out = append(out, Shadow{Rule: RuleToolShadowing, Kind: kind, Servers: [2]string{o.server, known.server},
							Names: [2]string{o.name, known.name}, How: fmt.Sprintf("extend the well-known tool name %+q", wk)})
					}
				}
			}
		}
	}
	return out
}

// place is one text of a server: where it is, and its strings.
type place struct {
	where string
	texts []string
}

func placesOf(s *lockfile.Server) []place {
	var out []place
	if s.Instructions != nil {
		out = append(out, place{"instructions", []string{*s.Instructions}})
	}
	for _, k := range mcpspec.Kinds {
		for _, it := range s.Items(k.Name) {
			key, _ := lockfile.ItemKey(k.Name, it)
			n := parse(it)
			if n == nil {
				continue
			}
			out = append(out, place{fmt.Sprintf("%s %+q", k.Name, key), itemTexts(k.Name, n)})
		}
	}
	return out
}

func crossReferences(servers map[string]*lockfile.Server, names []string, wanted func(a, b string) bool) []Shadow {
	type named struct{ kind, name string }
	own := map[string][]named{} // server → its tool and prompt names
	for _, sn := range names {
		for _, k := range []string{lockfile.KindTool, lockfile.KindPrompt} {
			for _, it := range servers[sn].Items(k) {
				if n, err := lockfile.ItemKey(k, it); err == nil {
					own[sn] = append(own[sn], named{k, n})
				}
			}
		}
	}
	var out []Shadow
	for _, a := range names {
		if !slices.ContainsFunc(names, func(b string) bool { return b != a && wanted(a, b) }) {
			continue
		}
		mine := map[string]bool{}
		for _, n := range own[a] {
			mine[n.name] = true
		}
		// first[token] is the first place of a's text holding it.
		places := placesOf(servers[a])
		first := map[string]int{}
		for i := len(places) - 1; i >= 0; i-- {
			tokens(places[i].texts, func(t string) { first[t] = i })
		}
		for _, b := range names {
			if a == b || !wanted(a, b) {
				continue
			}
			for _, n := range own[b] {
				i, ok := first[n.name]
				if !ok || mine[n.name] || !distinctive(n.name) {
					continue
				}
				// Once per pair: the first place that names it.
				out = append(out, Shadow{Rule: RuleCrossReference, Kind: n.kind, Servers: [2]string{a, b}, Names: [2]string{places[i].where, n.name}})
			}
		}
	}
	return out
}
