package locker

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// ProgressLine is the outcome of one server's lock in a run's progress
// (Progress): its error with each hint indented, or what it locked.
func ProgressLine(e *lockfile.Server, err error) string {
	if err != nil {
		return "FAILED  " + hint.Lines(err, "  ")
	}
	return fmt.Sprintf("ok      %s %s, %d tools, %d prompts, %d resources, %d templates",
		e.Era(), e.ProtocolVersion, len(e.Tools), len(e.Prompts), len(e.Resources), len(e.ResourceTemplates))
}

// WriteWritten writes to w, a "lock: " line each, what a merge into the
// lockfile at path noted, that it was written, then what show would flag
// in the new entries (Warnings) and shadows (review's shadowing between
// them and the lock's other servers), and for each entry whose package npx
// installs before its first start, which environment that install sees
// (launch.InstallSees). The lock is written anyway (unless Options.Strict
// refused the shadowing): the warnings are the reviewer's.
func WriteWritten(w io.Writer, path string, entries map[string]*lockfile.Server, wr *Written, shadows []review.Shadow) {
	for _, n := range wr.Notes {
		fmt.Fprintf(w, "lock: %s\n", n)
	}
	fmt.Fprintf(w, "lock: wrote %s\n", path)
	for _, s := range Warnings(path, entries) {
		fmt.Fprintf(w, "lock: warning: %s\n", s)
	}
	for _, s := range shadowLines(shadows, path) {
		fmt.Fprintf(w, "lock: warning: shadowing: %s\n", s)
	}
	for _, n := range slices.Sorted(maps.Keys(entries)) {
		if l := launch.InstallSees(entries[n]); l != "" {
			fmt.Fprintf(w, "lock: %s: %s\n", termtext.ShellArg(n), l)
		}
	}
}

// sameNamesShown is how many same-name findings of one pair of servers
// lock prints one by one; past it they are one line (the same server
// locked twice would otherwise print a line per tool).
const sameNamesShown = 3

// shadowLines are the shadowing findings as lock prints them: each alone,
// but a pair of servers with more than sameNamesShown names in common is
// one line naming the first few and the count, pointing at show of the
// lockfile at path, which lists each. Look-alike names and cross-references, the subtle findings,
// are always printed alone.
func shadowLines(shadows []review.Shadow, path string) []string {
	same := map[[2]string][]review.Shadow{}
	for _, s := range shadows {
		if s.Rule == review.RuleToolShadowing && s.How == "have the same name" {
			same[s.Servers] = append(same[s.Servers], s)
		}
	}
	var out []string
	done := map[[2]string]bool{}
	for _, s := range shadows {
		group := same[s.Servers]
		if s.Rule != review.RuleToolShadowing || s.How != "have the same name" || len(group) <= sameNamesShown {
			out = append(out, s.String())
			continue
		}
		if done[s.Servers] {
			continue
		}
		done[s.Servers] = true
		names := make([]string, 0, sameNamesShown)
		for _, g := range group[:sameNamesShown] {
			names = append(names, fmt.Sprintf("%s %+q", g.Kind, g.Names[0]))
		}
		out = append(out, fmt.Sprintf("servers %+q and %+q have %d tool and prompt names in common (%s and %d more): a client that loads both cannot tell them apart; mcpsum show --lockfile %s lists each",
			s.Servers[0], s.Servers[1], len(group), strings.Join(names, ", "), len(group)-sameNamesShown, termtext.ShellArg(path)))
	}
	return out
}
