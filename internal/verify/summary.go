package verify

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// A review in a minute: every report (verify, a re-lock, lock --accept)
// starts with what changed, counted by label and server, then an index of
// the changes grouped by label, most dangerous first, each under its most
// dangerous label, naming its server and item; the details follow in the
// same order. The first screen names every change's label and place.

// Changes is one server's findings and the two surfaces they compare.
type Changes struct {
	Name             string
	Locked, Observed *lockfile.Server
	Findings         []lockfile.Finding
}

// countLine is "3 changes: 1 hidden-text, 2 changed" (definitional
// findings counted under each of their labels; informational ones apart).
func countLine(fs []lockfile.Finding) string {
	n, info := 0, 0
	by := map[string]int{}
	for _, fd := range fs {
		if fd.Class != lockfile.Definitional {
			info++
			continue
		}
		n++
		for _, l := range fd.Labels {
			by[l]++
		}
	}
	var parts []string
	for _, li := range review.Labels {
		if by[li.Label] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", by[li.Label], li.Label))
		}
	}
	s := plural(n, "change")
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	if info > 0 {
		s += fmt.Sprintf(" (and %s)", plural(info, "informational change"))
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// writeIndex writes the changes of every server grouped by their most
// dangerous label, most dangerous first, one line per server and label
// (wrapped at about 100 columns): "  hidden-text (1)" then
// "    everything: tool echo".
func writeIndex(w io.Writer, c palette, all []Changes) {
	type entry struct{ server, kind, name string }
	groups := map[string][]entry{}
	total := 0
	for _, ch := range all {
		for _, fd := range ch.Findings {
			if fd.Class != lockfile.Definitional {
				continue
			}
			top := review.Top(fd.Labels)
			groups[top] = append(groups[top], entry{ch.Name, fd.Kind, fd.Name})
			total++
		}
	}
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s by label, most dangerous first (each under its most dangerous label; details below):\n", plural(total, "change"))
	for _, li := range review.Labels {
		es := groups[li.Label]
		if len(es) == 0 {
			continue
		}
		col := labelColour(c, li.Label)
		fmt.Fprintf(w, "  %s%s%s (%d)\n", col, li.Label, c.reset, len(es))
		for i := 0; i < len(es); {
			j := i
			var items []string
			for ; j < len(es) && es[j].server == es[i].server; j++ {
				items = append(items, place(es[j].kind, es[j].name))
			}
			writeWrapped(w, "    "+quoteArg(es[i].server)+": ", items)
			i = j
		}
	}
}

// place is an item for the index: its kind and name, the name quoted
// unless it is a plain identifier.
func place(kind, name string) string {
	if name == "" {
		return kind
	}
	if plainName.get().MatchString(name) {
		return kind + " " + name
	}
	return fmt.Sprintf("%s %+q", kind, name)
}

var plainName = &lazyRegexp{expr: `^[A-Za-z0-9_.:/@-]{1,80}$`}

// writeWrapped writes items after prefix, comma-separated, continuing on
// indented lines past about 100 columns.
func writeWrapped(w io.Writer, prefix string, items []string) {
	line := prefix
	indent := strings.Repeat(" ", len(prefix))
	for i, it := range items {
		sep := ", "
		if i == len(items)-1 {
			sep = ""
		}
		if len(line) > len(indent) && len(line)+len(it)+len(sep) > 100 && line != prefix {
			fmt.Fprintln(w, strings.TrimRight(line, " "))
			line = indent
		}
		line += it + sep
	}
	fmt.Fprintln(w, line)
}

// labelColour: red for what can carry an instruction or hide one, yellow
// for other changes, green for descriptive.
func labelColour(c palette, label string) string {
	switch label {
	case review.Descriptive:
		return c.green
	case review.Changed, review.Added, review.Removed, review.Reworded, review.AnnotationWeakened, review.SchemaWidened:
		return c.yellow
	}
	return c.red
}

// byDanger returns the definitional findings of all, grouped by their most
// dangerous label (most dangerous first), then the informational ones.
func byDanger(all []Changes) (groups []string, of map[string][]Changes) {
	of = map[string][]Changes{}
	add := func(g string, ch Changes, fd lockfile.Finding) {
		list := of[g]
		if n := len(list); n > 0 && list[n-1].Name == ch.Name {
			list[n-1].Findings = append(list[n-1].Findings, fd)
		} else {
			list = append(list, Changes{Name: ch.Name, Locked: ch.Locked, Observed: ch.Observed, Findings: []lockfile.Finding{fd}})
		}
		of[g] = list
	}
	for _, li := range review.Labels {
		for _, ch := range all {
			for _, fd := range ch.Findings {
				if fd.Class == lockfile.Definitional && review.Top(fd.Labels) == li.Label {
					add(li.Label, ch, fd)
				}
			}
		}
		if len(of[li.Label]) > 0 {
			groups = append(groups, li.Label)
		}
	}
	for _, ch := range all {
		for _, fd := range ch.Findings {
			if fd.Class != lockfile.Definitional {
				add("informational", ch, fd)
			}
		}
	}
	if len(of["informational"]) > 0 {
		groups = append(groups, "informational")
	}
	return groups, of
}

// writeDetails writes every finding in full, grouped as the index is:
// a heading per label, then per server its findings with reasons and diffs.
func writeDetails(w io.Writer, c palette, all []Changes) {
	groups, of := byDanger(all)
	for _, g := range groups {
		n := 0
		for _, ch := range of[g] {
			n += len(ch.Findings)
		}
		fmt.Fprintf(w, "\n%s== %s (%d) ==%s\n", labelColour(c, g), g, n, c.reset)
		for _, ch := range of[g] {
			fmt.Fprintf(w, "%s:\n", quoteArg(ch.Name))
			for _, fd := range ch.Findings {
				writeFinding(w, c, ch.Locked, ch.Observed, fd)
			}
		}
	}
}

// writeShadowGroups writes the shadowing grouped by the pair of servers
// involved, one heading per pair with its count.
func writeShadowGroups(w io.Writer, c palette, col string, shadows []review.Shadow) {
	type pair struct{ a, b string }
	var order []pair
	by := map[pair][]review.Shadow{}
	for _, sh := range shadows {
		p := pair{sh.Servers[0], sh.Servers[1]}
		if p.b < p.a {
			p = pair{p.b, p.a}
		}
		if _, ok := by[p]; !ok {
			order = append(order, p)
		}
		by[p] = append(by[p], sh)
	}
	slices.SortFunc(order, func(x, y pair) int { return strings.Compare(x.a+"\x00"+x.b, y.a+"\x00"+y.b) })
	for _, p := range order {
		fmt.Fprintf(w, "shadowing between %s and %s (%d):\n", quoteArg(p.a), quoteArg(p.b), len(by[p]))
		for _, sh := range by[p] {
			// String: fixed text and %+q renderings only.
			fmt.Fprintf(w, "  %sSHADOW%s %s: %s\n", col, c.reset, sh.Rule, sh.String())
		}
	}
}

// shadowSummary is "3 between a and b, 1 between a and c".
func shadowSummary(shadows []review.Shadow) string {
	n := map[string]int{}
	var order []string
	for _, sh := range shadows {
		a, b := sh.Servers[0], sh.Servers[1]
		if b < a {
			a, b = b, a
		}
		k := quoteArg(a) + " and " + quoteArg(b)
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	slices.Sort(order)
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d between %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}
