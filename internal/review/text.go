package review

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpsum/mcpsum/internal/lookalike"
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
				if !notText[k] {
					walk(n.vals[i])
				}
			}
		}
	}
	walk(n)
	return out
}

// textLabels are the text rules that fire on cur compared with old: each
// counts its matches, and fires when cur has a match old did not. names are
// the tool and prompt names whose mention is references-tool. why says what
// fired, with server text quoted.
func textLabels(old, cur []string, names []string) (labels, why []string) {
	// Strings on both sides add the same matches to both counts: only the
	// difference is read (an annotations change reads a few member names,
	// not every description again).
	old, cur = multisetDiff(old, cur)
	do, dc := destinationSet(old), destinationSet(cur)
	var added []string
	for d, n := range dc {
		if n > do[d] {
			added = append(added, d)
		}
	}
	if len(added) > 0 {
		slices.Sort(added)
		labels = append(labels, AddsDestination)
		why = append(why, "new destination "+quoteList(added, 3))
	}
	lo, lc := strings.ToLower(strings.Join(old, "\n")), strings.ToLower(strings.Join(cur, "\n"))
	for _, re := range modelAddress() {
		if m := re.FindAllString(lc, -1); len(m) > len(re.FindAllStringIndex(lo, -1)) {
			labels = append(labels, AddressesModel)
			why = append(why, "addresses the model: "+quoteList(m[len(m)-1:], 1))
			break
		}
	}
	if len(names) > 0 {
		to, tc := tokenCounts(old), tokenCounts(cur)
		for _, n := range names {
			if tc[n] > to[n] && distinctive(n) {
				labels = append(labels, ReferencesTool)
				why = append(why, "names the tool "+quoteList([]string{n}, 1))
				break
			}
		}
	}
	if hidden(cur, old) {
		labels = append(labels, HiddenText)
		why = append(why, "new text with hidden characters or a word mixing scripts")
	}
	return labels, why
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
		for _, re := range destinations() {
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

// tokenCounts counts the identifier-like tokens of ss ("read_file," gives
// "read_file").
func tokenCounts(ss []string) map[string]int {
	m := map[string]int{}
	tokens(ss, func(t string) { m[t]++ })
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

// hidden reports whether cur holds a string (not in old) with characters a
// terminal would not show as they are, or a word mixing scripts.
func hidden(cur, old []string) bool {
	seen := map[string]bool{}
	for _, s := range old {
		seen[s] = true
	}
	for _, s := range cur {
		if seen[s] {
			continue
		}
		if _, sus := termtext.Quote(s); sus {
			return true
		}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) }) {
			if confusableMix(lookalike.Scripts(w)) {
				return true
			}
		}
	}
	return false
}

// confusableMix reports whether a word's scripts include two whose letters
// look alike (Latin "echo" with a Cyrillic "е"); Han with Kana is ordinary
// Japanese.
func confusableMix(scripts []string) bool {
	n := 0
	for _, s := range scripts {
		switch s {
		case "Latin", "Cyrillic", "Greek", "Armenian", "Cherokee":
			n++
		}
	}
	return n > 1
}
