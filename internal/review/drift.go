package review

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Label fills the Labels and Why of each finding of locked against
// observed (observed may be nil: then item findings get their change as
// label, since nothing can be read). Every finding gets at least one label.
func Label(fs []lockfile.Finding, locked, observed *lockfile.Server) {
	if len(fs) == 0 {
		return
	}
	c := &labelCtx{names: toolNames(locked, observed), base: sync.OnceValue(func() baseline { return serverBaseline(locked, observed) })}
	for i := range fs {
		labels, why := labelOne(fs[i], locked, observed, c)
		fs[i].Labels, fs[i].Why = SortLabels(labels), why
	}
}

// labelCtx is what labelling one server's findings reads besides the
// finding: the tool and prompt names whose mention is references-tool, and
// the script and language the server writes in.
type labelCtx struct {
	names []string
	base  func() baseline // read once, when a finding has new text
}

// serverBaseline is the script and language of the locked server's text
// (the observed server's when nothing was locked), read from its first
// baselineBytes of text: enough to know what it writes in.
func serverBaseline(locked, observed *lockfile.Server) baseline {
	for _, s := range []*lockfile.Server{locked, observed} {
		if s == nil {
			continue
		}
		var ts []string
		n := 0
		if s.Instructions != nil {
			ts, n = append(ts, *s.Instructions), len(*s.Instructions)
		}
	items:
		for _, k := range mcpspec.Kinds {
			for _, it := range s.Items(k.Name) {
				if n >= baselineBytes {
					break items
				}
				for _, t := range texts(parse(it)) {
					ts, n = append(ts, t), n+len(t)
				}
			}
		}
		if len(ts) > 0 {
			return baselineOf(ts)
		}
	}
	return baselineOf(nil)
}

// baselineBytes is how much of a server's text its baseline reads.
const baselineBytes = 16 << 10

func labelOne(fd lockfile.Finding, locked, observed *lockfile.Server, lc *labelCtx) (labels, why []string) {
	c := &labelCtx{base: lc.base, names: slices.DeleteFunc(slices.Clone(lc.names), func(n string) bool { return n == fd.Name })}
	switch fd.Kind {
	case lockfile.KindTool, lockfile.KindPrompt, lockfile.KindResource, lockfile.KindResourceTemplate:
		if observed == nil && fd.Change != lockfile.Removed {
			break
		}
		var old, cur *node
		if locked != nil {
			old = parse(locked.Find(fd.Kind, fd.Name))
		}
		if observed != nil {
			cur = parse(observed.Find(fd.Kind, fd.Name))
		}
		labels, why = itemLabels(fd.Kind, old, cur, c)
	case lockfile.KindInstructions:
		if fd.Change == lockfile.Removed || observed == nil {
			break
		}
		var old []string
		if locked != nil && locked.Instructions != nil {
			old = []string{*locked.Instructions}
		}
		cur := deref(observed.Instructions)
		labels, why = textLabels(old, []string{cur}, c)
		switch {
		case fd.Change == lockfile.Added:
			labels = append([]string{Added}, labels...)
		case len(labels) > 0:
		case Rearranged(strings.Join(old, ""), cur):
			labels = []string{Descriptive}
		default:
			labels, why = []string{Reworded}, []string{reworded("instructions", strings.Join(old, ""), cur)}
		}
	}
	if len(labels) == 0 {
		labels = []string{fd.Change}
	}
	return labels, why
}

// itemLabels labels one item's change: old nil means added, cur nil removed.
func itemLabels(kind string, old, cur *node, c *labelCtx) (labels, why []string) {
	switch {
	case cur == nil:
		return []string{Removed}, nil
	case old == nil:
		l, w := textLabels(nil, itemTexts(kind, cur), c)
		return append([]string{Added}, l...), w
	case old.kind != 'o' || cur.kind != 'o':
		return []string{Changed}, nil
	}
	labels, why = textLabels(itemTexts(kind, old), itemTexts(kind, cur), c)
	risky := len(labels) > 0
	wording := false
	add := func(l string, w ...string) {
		if !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
		why = append(why, w...)
	}
	for _, f := range memberNames(old, cur) {
		o, c := old.get(f), cur.get(f)
		if equal(o, c) {
			continue
		}
		if (textKey(f) || f == "name" && (kind == lockfile.KindResource || kind == lockfile.KindResourceTemplate)) && wordy(o) && wordy(c) ||
			equal(stripText(o), stripText(c)) {
			wording = true
			continue
		}
		var w []string
		label := SchemaWidened
		switch f {
		case "inputSchema", "outputSchema":
			w = widened(f, o, c)
		case "arguments":
			if kind == lockfile.KindPrompt {
				w = argumentsWidened(o, c)
			}
		case "annotations":
			w, label = weakened(o, c), AnnotationWeakened
		}
		if len(w) == 0 {
			if f == "inputSchema" || f == "outputSchema" {
				w = schemaChanges(f, o, c) // structure, never wording
			}
			add(Changed, w...) // the finding's fields name it
			continue
		}
		add(label, w...)
	}
	if wording && !risky {
		if w := rewordings(kind, old, cur); len(w) > 0 {
			add(Reworded, w...)
		} else {
			add(Descriptive)
		}
	}
	return labels, why
}

// rewordings lists the wording members of an item whose new text says
// something the old did not (Rearranged is false), as reasons.
func rewordings(kind string, old, cur *node) []string {
	o, c := map[string]string{}, map[string]string{}
	wordings(kind, old, "", true, o)
	wordings(kind, cur, "", true, c)
	var out []string
	for _, p := range sortedKeys(c) {
		if !Rearranged(o[p], c[p]) {
			out = append(out, reworded(p, o[p], c[p]))
		}
	}
	return out
}

// reworded is the reason line of a reworded text at place.
func reworded(place, old, cur string) string {
	nw := newWords(old, cur, 4)
	if len(nw) == 0 {
		return place + ": words dropped from a sentence that stays (a \"not\", \"never\" or \"only\"), or sentences merged"
	}
	return place + ": new words " + quoteList(nw, 3)
}

// wordings collects the wording members of n by path: description and
// title at keyword positions (a property called "description" is a name),
// and a resource's or template's name.
func wordings(kind string, n *node, path string, top bool, into map[string]string) {
	if n == nil {
		return
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch n.kind {
	case 'a':
		for i, e := range n.entries {
			p := fmt.Sprintf("%s[%d]", path, i)
			if nm := e.get("name"); nm != nil && nm.kind == 's' {
				p = fmt.Sprintf("%s[%+q]", path, nm.str)
			}
			wordings(kind, e, p, false, into)
		}
	case 'o':
		for i, k := range n.keys {
			v := n.vals[i]
			switch {
			case v != nil && v.kind == 's' && (textKey(k) || top && k == "name" && (kind == lockfile.KindResource || kind == lockfile.KindResourceTemplate)):
				into[join(k)] = v.str
			case valueKey(k):
				// a value the schema suggests or allows: never wording
			case nameMap(k) && v != nil && v.kind == 'o':
				for j, name := range v.keys {
					wordings(kind, v.vals[j], join(k)+"."+name, false, into)
				}
			default:
				wordings(kind, v, join(k), false, into)
			}
		}
	}
}

// memberNames lists the members of two objects, old's order first.
func memberNames(a, b *node) []string {
	out := slices.Clone(a.keys)
	for _, k := range b.keys {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// stripText is n without its wording members (description, title) at
// keyword positions (a property called "description" stays).
func stripText(n *node) *node {
	if n == nil {
		return nil
	}
	switch n.kind {
	case 'a':
		c := &node{kind: 'a'}
		for _, e := range n.entries {
			c.entries = append(c.entries, stripText(e))
		}
		return c
	case 'o':
		c := &node{kind: 'o'}
		for i, k := range n.keys {
			if textKey(k) && wordy(n.vals[i]) {
				continue
			}
			v := n.vals[i]
			if valueKey(k) {
				c.keys, c.vals = append(c.keys, k), append(c.vals, v) // a value, kept whole
				continue
			}
			if nameMap(k) && v != nil && v.kind == 'o' {
				m := &node{kind: 'o', keys: v.keys}
				for _, sv := range v.vals {
					m.vals = append(m.vals, stripText(sv))
				}
				v = m
			} else {
				v = stripText(v)
			}
			c.keys, c.vals = append(c.keys, k), append(c.vals, v)
		}
		return c
	}
	return n
}

// toolNames are the tool and prompt names of both sides plus the
// well-known tools: a change whose text newly names one is references-tool.
func toolNames(servers ...*lockfile.Server) []string {
	out := slices.Clone(wellKnownTools)
	for _, s := range servers {
		if s == nil {
			continue
		}
		for _, k := range []string{lockfile.KindTool, lockfile.KindPrompt} {
			for _, it := range s.Items(k) {
				if key, err := lockfile.ItemKey(k, it); err == nil && !slices.Contains(out, key) {
					out = append(out, key)
				}
			}
		}
	}
	return out
}

// wordy reports whether a wording member's value is wording: a string (or
// absent). A "description" that is an object is not wording.
func wordy(n *node) bool { return n == nil || n.kind == 's' }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// itemTexts is texts(n) with a resource's or template's own uri (or
// uriTemplate) left out of destinations: it is the item's identity, not a
// place its text points to. The key's hidden characters still count.
func itemTexts(kind string, n *node) []string {
	key := lockfile.KeyField(kind)
	if kind != lockfile.KindResource && kind != lockfile.KindResourceTemplate || n.get(key) == nil {
		return texts(n)
	}
	c := &node{kind: 'o'}
	for i, k := range n.keys {
		if k != key {
			c.keys, c.vals = append(c.keys, k), append(c.vals, n.vals[i])
		}
	}
	out := texts(c)
	if v := n.get(key); v.kind == 's' {
		m := map[string]int{}
		if hiddenCounts(v.str, baseline{}, m); len(m) > 0 {
			out = append(out, v.str) // keeps hidden-text firing on the key
		}
	}
	return out
}
