package review

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// texts collects every string of n that a model could read: string values
// and member names (a schema's property names included), but not the values
// of notText members.
func texts(n *node) []string {
	var out []string
	var walk func(*node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		switch n.kind {
		case 's':
			out = append(out, n.str)
		case 'a':
			for _, e := range n.entries {
				walk(e)
			}
		case 'o':
			for i, k := range n.keys {
				out = append(out, k)
				if !notText(k) {
					walk(n.vals[i])
				}
			}
		}
	}
	walk(n)
	return out
}

// textLabels are the text rules that fire on cur compared with old: each
// counts its matches, and fires when cur has a match old did not. The
// rules read each string as written and as a reader would see or decode it
// (readings). c holds the tool and prompt names whose mention is
// references-tool and the server's script and language. why says what
// fired, with server text quoted.
func textLabels(old, cur []string, c *labelCtx) (labels, why []string) {
	// Strings on both sides add the same matches to both counts: only the
	// difference is read (an annotations change reads a few member names,
	// not every description again).
	old, cur = multisetDiff(old, cur)
	if len(cur) == 0 {
		return nil, nil
	}
	if w := hiddenWhy(old, cur, c.base()); len(w) > 0 {
		labels = append(labels, HiddenText)
		why = append(why, "hidden text: "+strings.Join(w, "; "))
	}
	o, n := countText(old), countText(cur)
	if m := newMatch(o.model, n.model, n.modelLast); m != "" {
		labels = append(labels, AddressesModel)
		why = append(why, "addresses the model: "+quoteList([]string{m}, 1))
	}
	if m := newMatch(o.sens, n.sens, n.sensLast); m != "" {
		labels = append(labels, SensitiveData)
		why = append(why, "names sensitive data: "+quoteList([]string{strings.Trim(m, " \t\n/,;:()\"'`~")}, 1))
	}
	var added []string
	for d, k := range n.dest {
		if k > o.dest[d] {
			added = append(added, d)
		}
	}
	if len(added) > 0 {
		slices.Sort(added)
		labels = append(labels, AddsDestination)
		why = append(why, "new destination "+quoteList(added, 3))
	}
	for _, name := range c.names {
		if n.tokens[name] > o.tokens[name] && distinctive(name) {
			labels = append(labels, ReferencesTool)
			why = append(why, "names the tool "+quoteList([]string{name}, 1))
			break
		}
	}
	return labels, why
}

// counts are the text rules' matches in some strings: per rule of
// modelAddress and sensitive (with the last match), per destination, per
// identifier-like token.
type counts struct {
	model, sens         []int
	modelLast, sensLast []string
	dest, tokens        map[string]int
}

// countText counts the rules' matches in ss. A string counts as the most
// of itself and its readings (what it shows, decodes or spells to), rule by
// rule, so a string read two ways is not counted twice.
func countText(ss []string) *counts {
	c := &counts{model: make([]int, len(modelAddress.get())), sens: make([]int, len(sensitive.get())),
		modelLast: make([]string, len(modelAddress.get())), sensLast: make([]string, len(sensitive.get())),
		dest: map[string]int{}, tokens: map[string]int{}}
	for _, s := range ss {
		forms := append([]string{s}, readings(s)...)
		lower := make([]string, len(forms))
		for i, f := range forms {
			lower[i] = strings.ToLower(f)
		}
		most(modelAddress.get(), lower, c.model, c.modelLast)
		most(sensitive.get(), lower, c.sens, c.sensLast)
		dest, toks := map[string]int{}, map[string]int{}
		for _, f := range forms {
			for d, k := range destinationSet([]string{f}) {
				dest[d] = max(dest[d], k)
			}
			one := map[string]int{}
			tokens([]string{f}, func(t string) { one[t]++ })
			for t, k := range one {
				toks[t] = max(toks[t], k)
			}
		}
		for d, k := range dest {
			c.dest[d] += k
		}
		for t, k := range toks {
			c.tokens[t] += k
		}
	}
	return c
}

// most adds to n, rule by rule, the most matches any of forms has, and
// records the last match in last.
func most(rules []*regexp.Regexp, forms []string, n []int, last []string) {
	for i, re := range rules {
		best := 0
		for _, f := range forms {
			if m := re.FindAllString(f, -1); len(m) > best {
				best, last[i] = len(m), strings.TrimSpace(m[len(m)-1])
			}
		}
		n[i] += best
	}
}

// newMatch is the last match of the first rule with more matches in cur
// than in old ("" when none has).
func newMatch(old, cur []int, last []string) string {
	for i := range cur {
		if cur[i] > old[i] {
			return last[i]
		}
	}
	return ""
}

// hiddenWhy lists the reasons cur holds more hidden text than old, sorted.
func hiddenWhy(old, cur []string, b baseline) []string {
	o, c := map[string]int{}, map[string]int{}
	for _, s := range old {
		hiddenCounts(s, b, o)
	}
	for _, s := range cur {
		hiddenCounts(s, b, c)
	}
	var out []string
	for _, r := range sortedKeys(c) {
		if c[r] > o[r] {
			out = append(out, r)
		}
	}
	return out
}

// multisetDiff returns the strings of a not in b and of b not in a, each
// as often as it is more frequent on its side.
func multisetDiff(a, b []string) (onlyA, onlyB []string) {
	n := make(map[string]int, len(a))
	for _, s := range a {
		n[s]++
	}
	for _, s := range b {
		if n[s] > 0 {
			n[s]--
			continue
		}
		onlyB = append(onlyB, s)
	}
	for _, s := range a {
		if n[s] > 0 {
			n[s]--
			onlyA = append(onlyA, s)
		}
	}
	return onlyA, onlyB
}

// quoteList renders up to max strings escaped, then how many more.
func quoteList(ss []string, max int) string {
	var q []string
	for i, s := range ss {
		if i == max {
			q = append(q, fmt.Sprintf("and %d more", len(ss)-max))
			break
		}
		q = append(q, termtext.Quoted(s, 120))
	}
	return strings.Join(q, ", ")
}

// destinationSet is every destination in ss, host names lower-cased.
func destinationSet(ss []string) map[string]int {
	m := map[string]int{}
	for _, s := range ss {
		for _, re := range destinations.get() {
			for _, sub := range re.FindAllStringSubmatch(s, -1) {
				d := sub[0]
				if len(sub) > 2 && strings.HasPrefix(re.String(), "(^|") {
					d = sub[2] // the path without the character before it
				}
				m[strings.ToLower(strings.TrimRight(d, ".,;:!?"))]++
			}
		}
	}
	return m
}

// tokens calls fn for each identifier-like token of ss: a run of letters,
// digits and "_.-/:", without trailing ".-/:".
func tokens(ss []string, fn func(string)) {
	for _, s := range ss {
		start := -1
		for i, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-/:", r) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 {
				emit(s[start:i], fn)
				start = -1
			}
		}
		if start >= 0 {
			emit(s[start:], fn)
		}
	}
}

func emit(t string, fn func(string)) {
	if t = strings.TrimRight(t, ".-/:"); t != "" {
		fn(t)
	}
}

// distinctive reports whether a name is unlike an English word, so that
// finding it in prose means the tool: it holds '_', '-', '.', '/', ':' or a
// digit, changes case inside ("readFile"), or is long.
func distinctive(name string) bool {
	if len(name) >= 12 {
		return true
	}
	prevLower := false
	for _, r := range name {
		switch {
		case strings.ContainsRune("_-./:", r), unicode.IsDigit(r):
			return true
		case unicode.IsUpper(r) && prevLower:
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}
