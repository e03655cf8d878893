package review

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// NameFlags says why one name could be mistaken for another, one line per
// reason (`tool "\u0435cho": mixes scripts Cyrillic and Latin`). Lines are
// built from fixed text and %+q renderings (ASCII escapes): safe to print.
func NameFlags(kind, name string) []string {
	var out []string
	for _, why := range lookalike.Check(name) {
		out = append(out, fmt.Sprintf("%s %+q: %s", kind, name, why))
	}
	return out
}

// Lookalikes lists the look-alike names within one server: each name's
// flags, then per kind the groups of names that look alike
// (`tools "echo" and "\u0435cho" look alike`).
func Lookalikes(s *lockfile.Server) []string {
	var out []string
	for _, k := range mcpspec.Kinds {
		var keys []string
		for _, it := range s.Items(k.Name) {
			key, err := lockfile.ItemKey(k.Name, it)
			if err != nil {
				continue
			}
			keys = append(keys, key)
			out = append(out, NameFlags(k.Name, key)...)
		}
		for _, c := range lookalike.Collisions(keys) {
			out = append(out, k.Field+" "+c)
		}
	}
	return out
}

// ServerNames lists the look-alike groups among a lock's server names
// (`server names "a" and "а" look alike`).
func ServerNames(names []string) []string {
	var out []string
	for _, c := range lookalike.Collisions(names) {
		out = append(out, "server names "+c)
	}
	return out
}

// ForServer is what a review of one server of a lock lists beyond its
// content: look-alike names (its own name, the lock's server names, the
// names within it) and the shadowing pairs of shadows that involve it.
// Every line is fixed text and %+q renderings: safe to print.
func ForServer(name string, s *lockfile.Server, serverNames []string, shadows []Shadow) (lookalikes, shadowing []string) {
	lookalikes = append(lookalikes, NameFlags("server", name)...)
	lookalikes = append(lookalikes, ServerNames(serverNames)...)
	lookalikes = append(lookalikes, Lookalikes(s)...)
	for _, sh := range shadows {
		if sh.Involves(name) {
			shadowing = append(shadowing, sh.Rule+": "+sh.String())
		}
	}
	return lookalikes, shadowing
}
