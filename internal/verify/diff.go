package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// writeChange writes a changed item's (or the instructions') changed
// fields as line diffs of what was locked and what the server serves now.
func writeChange(w io.Writer, c palette, locked, observed *lockfile.Server, fd lockfile.Finding) {
	switch fd.Kind {
	case lockfile.KindInstructions:
		writeDiff(w, c, textOf(locked.Instructions), textOf(observed.Instructions))
	case lockfile.KindTool, lockfile.KindPrompt, lockfile.KindResource, lockfile.KindResourceTemplate:
		old := fieldsOf(locked.Find(fd.Kind, fd.Name))
		cur := fieldsOf(observed.Find(fd.Kind, fd.Name))
		for _, field := range fd.Fields {
			fmt.Fprintf(w, "      %s:\n", field)
			writeDiff(w, c, renderField(old[field]), renderField(cur[field]))
		}
	}
}

func textOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// fieldsOf is an item's top-level members by exact key (items in a lock or
// from lockfile.Compare hold no duplicate keys).
func fieldsOf(raw json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	_, _ = jsonscan.Members(raw, jsonscan.SkipWS(raw, 0), func(key string, _, vs, ve int) error {
		m[key] = raw[vs:ve]
		return nil
	})
	return m
}

// renderField is a field's value as text to diff: a string as itself, any
// other JSON with its members in one order (RFC 8785's, so that a server
// that only reorders members shows no change) and indented.
func renderField(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if s, ok := jsonscan.String(raw); ok {
		return s
	}
	if c, err := lockfile.Canonical(raw); err == nil {
		raw = c
	}
	out, err := lockfile.Indent(nil, raw, "") // as deep as the lockfile indents, then compact
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// diffContext is how many unchanged lines show around a change: enough to
// see which property of a schema a changed line belongs to.
const diffContext = 2

// writeDiff writes a line diff of old and cur with diffContext unchanged
// lines around each change ("…" for the lines left out between hunks),
// every line escaped.
func writeDiff(w io.Writer, c palette, old, cur string) {
	// Never cut a changed line: what is not shown is not reviewed.
	lines := lineDiff(splitLines(old), splitLines(cur))
	show := make([]bool, len(lines))
	for i, l := range lines {
		if l.op == ' ' {
			continue
		}
		for j := max(0, i-diffContext); j <= min(len(lines)-1, i+diffContext); j++ {
			show[j] = true
		}
	}
	gap := false
	for i, l := range lines {
		if !show[i] {
			gap = true
			continue
		}
		if gap {
			fmt.Fprintf(w, "        %s…%s\n", c.dim, c.reset)
			gap = false
		}
		q, sus := termtext.Quote(l.text)
		col := c.green
		switch l.op {
		case '-':
			col = c.red
		case ' ':
			col = c.dim
		}
		flag := ""
		if sus {
			flag = "   !! SUSPICIOUS characters"
		}
		fmt.Fprintf(w, "        %s%c %s%s%s\n", col, l.op, q, c.reset, flag)
		// A run of removed lines replaced by as many added ones: each pair
		// again as a word diff, so a few swapped words stand out.
		if l.op == '+' && (i+1 == len(lines) || lines[i+1].op != '+') {
			writeWordDiffs(w, c, lines, i)
		}
	}
}

// writeWordDiffs writes, for the run of '+' lines ending at end that
// follows a run of as many '-' lines, each pair as a word diff
// ("~ Read the [-entire knowledge graph-]{+user's private key+}") when the
// two lines share a word.
func writeWordDiffs(w io.Writer, c palette, lines []diffLine, end int) {
	start := end
	for start > 0 && lines[start-1].op == '+' {
		start--
	}
	n := end - start + 1
	if start < n || slices.ContainsFunc(lines[start-n:start], func(l diffLine) bool { return l.op != '-' }) {
		return
	}
	for k := 0; k < n; k++ {
		if d, ok := wordDiff(lines[start-n+k].text, lines[start+k].text); ok {
			q, _ := termtext.Quote(d)
			fmt.Fprintf(w, "        %s~%s %s\n", c.yellow, c.reset, q)
		}
	}
}

// wordDiff renders old → cur word by word: removed runs in [-…-], added
// ones in {+…+}, long unchanged runs shortened. ok is false when the two
// share no word (a plain replacement) or are too long to compare.
func wordDiff(old, cur string) (string, bool) {
	a, b := wordTokens(old), wordTokens(cur)
	if len(a)*len(b) > 1_000_000 {
		return "", false
	}
	ops := lineDiff(a, b)
	shared := slices.ContainsFunc(ops, func(d diffLine) bool { return d.op == ' ' && strings.TrimSpace(d.text) != "" })
	if !shared {
		return "", false
	}
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].op == ' ' {
			t := ops[i].text
			if r := []rune(t); len(r) > 60 {
				t = string(r[:24]) + "…" + string(r[len(r)-24:])
			}
			out.WriteString(t)
			i++
			continue
		}
		// A changed region: removals and additions, with the blanks
		// between two changed words counted on both sides.
		var del, ins strings.Builder
	region:
		for ; i < len(ops); i++ {
			switch {
			case ops[i].op == '-':
				del.WriteString(ops[i].text)
			case ops[i].op == '+':
				ins.WriteString(ops[i].text)
			case strings.TrimSpace(ops[i].text) == "" && i+1 < len(ops) && ops[i+1].op != ' ':
				del.WriteString(ops[i].text)
				ins.WriteString(ops[i].text)
			default:
				break region
			}
		}
		if del.Len() > 0 {
			out.WriteString("[-" + del.String() + "-]")
		}
		if ins.Len() > 0 {
			out.WriteString("{+" + ins.String() + "+}")
		}
	}
	return out.String(), true
}

// wordTokens splits s into runs of letters and digits and runs of
// everything else, so that a word diff keeps spaces and punctuation.
func wordTokens(s string) []string {
	var out []string
	start, word := 0, false
	for i, r := range s {
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\''
		if i > start && isWord != word {
			out = append(out, s[start:i])
			start = i
		}
		word = isWord
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// lineDiff is a longest-common-subsequence line diff; inputs are bounded by
// what a lock holds, so the quadratic table is fine. Very long inputs fall
// back to "all removed, all added".
func lineDiff(a, b []string) []diffLine {
	var out []diffLine
	if len(a)*len(b) > 4_000_000 {
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
		return out
	}
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}
