package review

import (
	"fmt"
	"slices"
	"strings"
)

// widened lists how schema cur accepts more than old (nil: it does not).
// Both are JSON Schema nodes (nil when absent). It follows properties,
// items, additionalProperties and the anyOf/oneOf/allOf branches.
func widened(path string, old, cur *node) []string {
	switch {
	case old == nil:
		return nil // a schema where there was none constrains, it does not widen
	case cur == nil:
		return []string{path + " dropped"}
	case old.kind != 'o' || cur.kind != 'o':
		if equal(old, cur) {
			return nil
		}
		if cur.kind == 'b' && cur.lit == "true" || cur.kind == 'o' && len(cur.keys) == 0 {
			return []string{path + " now accepts anything"}
		}
		return nil
	}
	var out []string
	add := func(format string, a ...any) { out = append(out, path+": "+fmt.Sprintf(format, a...)) }
	for _, kw := range []string{"anyOf", "oneOf"} {
		if br := cur.get(kw); br != nil && br.kind == 'a' && old.get(kw) == nil && old.get("type") != nil && cur.get("type") == nil {
			// One shape became alternatives: each branch against the old shape.
			if len(br.entries) > 1 {
				add("now one of %d shapes (%s)", len(br.entries), kw)
			}
			for i, b := range br.entries {
				out = append(out, widened(fmt.Sprintf("%s.%s[%d]", path, kw, i), old, b)...)
			}
			return out
		}
	}
	if ot, ct := typeSet(old.get("type")), typeSet(cur.get("type")); ot != nil {
		for _, t := range ct {
			if !slices.Contains(ot, t) && !(t == "integer" && slices.Contains(ot, "number")) {
				add("type %q allowed", t)
			}
		}
		if ct == nil {
			add("type no longer restricted")
		}
	}
	if oe := old.get("enum"); oe != nil {
		if ce := cur.get("enum"); ce == nil {
			add("enum dropped")
		} else {
			for _, v := range ce.entries {
				if !slices.ContainsFunc(oe.entries, func(o *node) bool { return equal(o, v) }) {
					add("enum value %s added", render(v))
				}
			}
		}
	}
	if oc := old.get("const"); oc != nil && !equal(oc, cur.get("const")) {
		add("const dropped or changed")
	}
	cr := stringsOf(cur.get("required"))
	for _, r := range stringsOf(old.get("required")) {
		if !slices.Contains(cr, r) {
			add("%q no longer required", r)
		}
	}
	op, cp := old.get("properties"), cur.get("properties")
	if cp != nil {
		for i, k := range cp.keys {
			if o := op.get(k); o != nil {
				out = append(out, widened(path+"."+k, o, cp.vals[i])...)
			} else {
				add("new property %q", k)
			}
		}
	}
	if oa := old.get("additionalProperties"); oa != nil && !equal(oa, cur.get("additionalProperties")) {
		if ca := cur.get("additionalProperties"); ca == nil || ca.kind != 'o' || oa.kind != 'o' {
			if !(oa.kind == 'b' && oa.lit == "true") {
				add("additionalProperties opened")
			}
		} else {
			out = append(out, widened(path+".additionalProperties", oa, ca)...)
		}
	}
	out = append(out, widened(path+".items", old.get("items"), cur.get("items"))...)
	for _, kw := range []string{"anyOf", "oneOf"} {
		ob, cb := old.get(kw), cur.get(kw)
		if ob != nil && (cb == nil || len(cb.entries) > len(ob.entries)) {
			add("%s has more branches", kw)
		}
	}
	if ob, cb := old.get("allOf"), cur.get("allOf"); ob != nil && (cb == nil || len(cb.entries) < len(ob.entries)) {
		add("allOf has fewer branches")
	}
	for _, kw := range []string{"maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"} {
		if o := old.get(kw); o != nil && o.kind == 'n' {
			if c := cur.get(kw); c == nil || c.kind != 'n' || c.num > o.num {
				add("%s loosened", kw)
			}
		}
	}
	for _, kw := range []string{"minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"} {
		if o := old.get(kw); o != nil && o.kind == 'n' {
			if c := cur.get(kw); c == nil || c.kind != 'n' || c.num < o.num {
				add("%s loosened", kw)
			}
		}
	}
	for _, kw := range []string{"pattern", "format", "contentMediaType"} {
		if o := old.get(kw); o != nil && !equal(o, cur.get(kw)) {
			add("%s dropped or changed", kw)
		}
	}
	if c := cur.get("x-mcp-header"); c != nil && !equal(c, old.get("x-mcp-header")) {
		add("new x-mcp-header %s", render(c))
	}
	return out
}

// argumentsWidened lists how a prompt's arguments accept more: a new
// argument, or one no longer required.
func argumentsWidened(old, cur *node) []string {
	if cur == nil || cur.kind != 'a' {
		return nil
	}
	byName := map[string]*node{}
	if old != nil {
		for _, a := range old.entries {
			if n := a.get("name"); n != nil {
				byName[n.str] = a
			}
		}
	}
	var out []string
	for _, a := range cur.entries {
		n := a.get("name")
		if n == nil {
			continue
		}
		o, ok := byName[n.str]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("new argument %q", n.str))
		case isTrue(o.get("required")) && !isTrue(a.get("required")):
			out = append(out, fmt.Sprintf("argument %q no longer required", n.str))
		}
	}
	return out
}

// hintDefaults are the MCP defaults of the tool annotation hints (an absent
// hint means its default), and safe is the value that promises more.
var hintDefaults = []struct {
	name          string
	def, safeWhen bool
}{
	{"readOnlyHint", false, true},
	{"destructiveHint", true, false},
	{"idempotentHint", false, true},
	{"openWorldHint", true, false},
}

// weakened lists the hints of annotations cur that promise less than old.
func weakened(old, cur *node) []string {
	var out []string
	for _, h := range hintDefaults {
		o, c := hint(old, h.name, h.def), hint(cur, h.name, h.def)
		if o == h.safeWhen && c != h.safeWhen {
			out = append(out, fmt.Sprintf("%s %v→%v", h.name, o, c))
		}
	}
	return out
}

func hint(ann *node, name string, def bool) bool {
	v := ann.get(name)
	if v == nil || v.kind != 'b' {
		return def
	}
	return v.lit == "true"
}

func isTrue(n *node) bool { return n != nil && n.kind == 'b' && n.lit == "true" }

func typeSet(n *node) []string {
	if n == nil {
		return nil
	}
	if n.kind == 's' {
		return []string{n.str}
	}
	return stringsOf(n)
}

func stringsOf(n *node) []string {
	if n == nil || n.kind != 'a' {
		return nil
	}
	var out []string
	for _, e := range n.entries {
		if e.kind == 's' {
			out = append(out, e.str)
		}
	}
	return out
}

// render is a short, escaped rendering of a scalar for a reason.
func render(n *node) string {
	switch n.kind {
	case 's':
		return fmt.Sprintf("%+q", n.str)
	case 'n', 'b':
		return n.lit
	case 'z':
		return "null"
	}
	return "(a JSON value)"
}

// schemaChanges lists the structural keywords of schema cur that differ
// from old where the schema was not widened (a new default, other
// examples, a narrower enum or type, a new pattern): none is wording.
func schemaChanges(path string, old, cur *node) []string {
	if old == nil || cur == nil || old.kind != 'o' || cur.kind != 'o' {
		if !equal(stripText(old), stripText(cur)) {
			return []string{path + " changed"}
		}
		return nil
	}
	var out []string
	for _, kw := range structuralKeywords {
		if o, c := old.get(kw), cur.get(kw); !equal(o, c) {
			switch {
			case o == nil:
				out = append(out, fmt.Sprintf("%s: %s %s added", path, kw, short(c)))
			case c == nil:
				out = append(out, fmt.Sprintf("%s: %s dropped", path, kw))
			default:
				out = append(out, fmt.Sprintf("%s: %s %s → %s", path, kw, short(o), short(c)))
			}
		}
	}
	op, cp := old.get("properties"), cur.get("properties")
	if cp != nil {
		for i, k := range cp.keys {
			out = append(out, schemaChanges(path+"."+k, op.get(k), cp.vals[i])...)
		}
	}
	out = append(out, schemaChanges(path+".items", old.get("items"), cur.get("items"))...)
	return out
}

// structuralKeywords are the schema keywords that constrain or suggest a
// value: a change to one is never wording, whatever its words.
var structuralKeywords = []string{"type", "enum", "const", "default", "examples", "pattern", "format", "required", "minimum", "maximum", "minLength", "maxLength", "items", "additionalProperties"}

// short is a one-line, escaped rendering of a value for a reason.
func short(n *node) string {
	if n == nil {
		return "(none)"
	}
	switch n.kind {
	case 'a':
		var parts []string
		for i, e := range n.entries {
			if i == 4 {
				parts = append(parts, fmt.Sprintf("and %d more", len(n.entries)-4))
				break
			}
			parts = append(parts, short(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case 'o':
		return "(an object)"
	case 's':
		return quoteList([]string{n.str}, 1)
	}
	return render(n)
}
