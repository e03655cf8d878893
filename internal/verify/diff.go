package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
// other JSON indented.
func renderField(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if s, ok := jsonscan.String(raw); ok {
		return s
	}
	out, err := lockfile.Indent(nil, raw, "") // as deep as the lockfile indents, then compact
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// writeDiff writes a line diff of old and cur, every line escaped.
func writeDiff(w io.Writer, c palette, old, cur string) {
	// Never cut: what is not shown is not reviewed.
	for _, l := range lineDiff(splitLines(old), splitLines(cur)) {
		if l.op == ' ' {
			continue
		}
		q, sus := termtext.Quote(l.text)
		col := c.green
		if l.op == '-' {
			col = c.red
		}
		flag := ""
		if sus {
			flag = "   !! SUSPICIOUS characters"
		}
		fmt.Fprintf(w, "        %s%c %s%s%s\n", col, l.op, q, c.reset, flag)
	}
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
