package review

import (
	"fmt"
	"slices"
	"strings"

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
	// Spelling, for cross-reference: the name as the text writes it
	// ("Send-Email", "mail.send_email"), when it is not Names[1] itself.
	Spelling string
}

// String is the finding for people; server text is escaped (%+q).
func (s Shadow) String() string {
	if s.Rule == RuleCrossReference {
		as := ""
		if s.Spelling != "" {
			as = fmt.Sprintf(" as %+q", s.Spelling)
		}
		return fmt.Sprintf("server %+q names %s %+q of server %+q%s (in its %s): text of one server steering the model to another server's %s",
			s.Servers[0], s.Kind, s.Names[1], s.Servers[1], as, s.Names[0], s.Kind)
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
				how := "look alike"
				switch {
				case a.name == b.name:
					how = "have the same name"
				case caseSeps(a.name) == caseSeps(b.name):
					how = "differ only in case or separators"
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
	type named struct{ server, kind, name string }
	byFold := map[string][]named{} // fold of a name → the servers' items of that name
	own := map[string]map[string]bool{}
	for _, sn := range names {
		own[sn] = map[string]bool{}
		for _, k := range []string{lockfile.KindTool, lockfile.KindPrompt} {
			for _, it := range servers[sn].Items(k) {
				if n, err := lockfile.ItemKey(k, it); err == nil {
					for _, f := range folds(n) {
						own[sn][f] = true
						if distinctive(n) && !slices.Contains(byFold[f], named{sn, k, n}) {
							byFold[f] = append(byFold[f], named{sn, k, n})
						}
					}
				}
			}
		}
	}
	sorted := sortedKeys(byFold)
	isPrefix := func(p string) bool {
		i, _ := slices.BinarySearch(sorted, p)
		return i < len(sorted) && strings.HasPrefix(sorted[i], p)
	}
	var out []Shadow
	memo := &folder{}
	for _, a := range names {
		if !slices.ContainsFunc(names, func(b string) bool { return b != a && wanted(a, b) }) {
			continue
		}
		// Once per pair of a server and a named item: the first place, and
		// the first spelling there.
		seen := map[named]bool{}
		for _, p := range placesOf(servers[a]) {
			for _, t := range p.texts {
				memo.spellings(t, isPrefix, func(start, end int, fs [2]string) {
					m0, m1 := byFold[fs[0]], byFold[fs[1]]
					if len(m0)+len(m1) == 0 || own[a][fs[0]] || own[a][fs[1]] {
						return // nothing, or a name of the naming server itself
					}
					for _, n := range slices.Concat(m0, m1) {
						if n.server == a || !wanted(a, n.server) || seen[n] {
							continue
						}
						seen[n] = true
						sh := Shadow{Rule: RuleCrossReference, Kind: n.kind, Servers: [2]string{a, n.server}, Names: [2]string{p.where, n.name}}
						if sp := t[start:end]; sp != n.name {
							sh.Spelling = sp
						}
						out = append(out, sh)
					}
				})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Shadow) int {
		return strings.Compare(x.Servers[0]+"\x00"+x.Servers[1]+"\x00"+x.Names[1], y.Servers[0]+"\x00"+y.Servers[1]+"\x00"+y.Names[1])
	})
	return out
}

// caseSeps is name lower-cased without separators: two names equal in it
// differ only in case or separators.
func caseSeps(name string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("_-. /:", r) {
			return -1
		}
		return r
	}, strings.ToLower(name))
}

// ShadowingAmong is Shadowing judged among the servers each client runs
// together: groups lists, per client session, the server names it loads
// into one model context (a user lock shared by several clients). The
// servers no group names are judged together, among themselves (no client
// found runs them yet). groups nil: every server of the lock together
// (Shadowing). Each finding is listed once.
func ShadowingAmong(servers map[string]*lockfile.Server, keep func(server string) bool, groups [][]string) []Shadow {
	if groups == nil {
		return Shadowing(servers, keep)
	}
	named := map[string]bool{}
	for _, g := range groups {
		for _, n := range g {
			named[n] = true
		}
	}
	var rest []string
	for n := range servers {
		if !named[n] {
			rest = append(rest, n)
		}
	}
	var out []Shadow
	for _, g := range append(slices.Clone(groups), rest) {
		sub := map[string]*lockfile.Server{}
		for _, n := range g {
			if s := servers[n]; s != nil {
				sub[n] = s
			}
		}
		for _, sh := range Shadowing(sub, keep) {
			if !slices.Contains(out, sh) {
				out = append(out, sh)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Shadow) int {
		return strings.Compare(a.Rule+"\x00"+a.Servers[0]+"\x00"+a.Servers[1]+"\x00"+a.Names[0]+"\x00"+a.Names[1],
			b.Rule+"\x00"+b.Servers[0]+"\x00"+b.Servers[1]+"\x00"+b.Names[0]+"\x00"+b.Names[1])
	})
	return out
}
