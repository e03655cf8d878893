package review

import (
	"slices"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Label fills the Labels and Why of each finding of locked against
// observed (observed may be nil: then item findings get their change as
// label, since nothing can be read). Every finding gets at least one label.
func Label(fs []lockfile.Finding, locked, observed *lockfile.Server) {
	names := toolNames(locked, observed)
	for i := range fs {
		fs[i].Labels, fs[i].Why = labelOne(fs[i], locked, observed, names)
	}
}

func labelOne(fd lockfile.Finding, locked, observed *lockfile.Server, names []string) (labels, why []string) {
	others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == fd.Name })
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
		labels, why = itemLabels(fd.Kind, old, cur, others)
	case lockfile.KindInstructions:
		if fd.Change == lockfile.Removed || observed == nil {
			break
		}
		var old []string
		if locked != nil && locked.Instructions != nil {
			old = []string{*locked.Instructions}
		}
		labels, why = textLabels(old, []string{deref(observed.Instructions)}, others)
		if fd.Change == lockfile.Added {
			labels = append([]string{Added}, labels...)
		} else if len(labels) == 0 {
			labels = []string{Descriptive}
		}
	}
	if len(labels) == 0 {
		labels = []string{fd.Change}
	}
	return labels, why
}

// itemLabels labels one item's change: old nil means added, cur nil removed.
func itemLabels(kind string, old, cur *node, names []string) (labels, why []string) {
	switch {
	case cur == nil:
		return []string{Removed}, nil
	case old == nil:
		l, w := textLabels(nil, itemTexts(kind, cur), names)
		return append([]string{Added}, l...), w
	case old.kind != 'o' || cur.kind != 'o':
		return []string{Changed}, nil
	}
	labels, why = textLabels(itemTexts(kind, old), itemTexts(kind, cur), names)
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
		if (textKeys[f] || f == "name" && (kind == lockfile.KindResource || kind == lockfile.KindResourceTemplate)) && wordy(o) && wordy(c) ||
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
			add(Changed) // the finding's fields name it
			continue
		}
		add(label, w...)
	}
	if wording && !risky {
		add(Descriptive)
	}
	return labels, why
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
			if textKeys[k] && wordy(n.vals[i]) {
				continue
			}
			v := n.vals[i]
			if nameMaps[k] && v != nil && v.kind == 'o' {
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
	if v := n.get(key); v.kind == 's' && hidden([]string{v.str}, nil) {
		out = append(out, v.str) // keeps hidden-text firing on the key
	}
	return out
}
