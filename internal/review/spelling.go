package review

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mcpsum/mcpsum/internal/lookalike"
)

// Names by any spelling: a model reads "send_email", "sendEmail",
// "send-email", "send email", "ＳｅｎｄＥｍａｉｌ", "sеnd_email" (a Cyrillic
// е), "send\u200b_email" and "mail.send_email" as the same tool.

// fold is the form every spelling of a name shares: compatibility forms
// folded and invisible characters dropped (visible), letter case ignored,
// look-alike letters mapped to one prototype (the UTS #39 skeleton of
// Unicode's confusables.txt), and separators (_ - . space / :) dropped.
func fold(name string) string { return folds(name)[0] }

// folds are a name's two folds: lower-cased before the skeleton ("SEND" is
// "send"), and after it (a capital "I" standing for an "l" is an "l").
func folds(name string) [2]string {
	v := visible(name)
	return [2]string{dropSeps(lookalike.Confusable(strings.ToLower(v))), dropSeps(lookalike.Confusable(v))}
}

func dropSeps(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("_-. /:", r) || unicode.Is(unicode.Mn, r) && r != 0x301 && r != 0x300 && r != 0x308 {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// spellings calls fn for each way s may name a tool, with where it is
// written in s and its two folds: each identifier-like token (letters,
// digits, marks, invisible characters and _ - . / :), each tail of a
// qualified token ("mail.send_email", "mail/send_email",
// "mcp__mail__send_email" also give "send_email", written as the whole
// token), and runs of up to four words written apart ("send email",
// "Send-Email"). A fold is the concatenation of its parts' folds (each
// memoised), so a long text costs one fold per distinct word.
//
// Only a spelling whose fold begins some name's fold (isPrefix) is
// extended into a phrase.
func (f *folder) spellings(s string, isPrefix func(string) bool, fn func(start, end int, folded [2]string)) {
	f.toks, f.parts = f.toks[:0], f.parts[:0]
	flush := func(start, end int) {
		t := strings.TrimRight(s[start:end], ".-/:")
		if t == "" {
			return
		}
		first := len(f.parts)
		if !strings.ContainsAny(t, "./:") && !strings.Contains(t, "__") {
			f.parts = append(f.parts, f.folds(t))
		} else {
			for _, p := range qualifiedParts(t) {
				f.parts = append(f.parts, f.folds(p))
			}
		}
		f.toks = append(f.toks, tok{start, start + len(t), first, len(f.parts)})
	}
	start := -1
	for i, r := range s {
		if tokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			flush(start, i)
			start = -1
		}
	}
	if start >= 0 {
		flush(start, len(s))
	}
	concat := func(parts [][2]string) [2]string {
		if len(parts) == 1 {
			return parts[0]
		}
		var out [2]string
		for _, p := range parts {
			out[0] += p[0]
			out[1] += p[1]
		}
		return out
	}
	toks := f.toks
	for i, t := range toks {
		parts := f.parts[t.first:t.last]
		whole := concat(parts)
		fn(t.start, t.end, whole)
		for k := 1; k < len(parts); k++ {
			fn(t.start, t.end, concat(parts[k:]))
		}
		phrase := whole
		for j := i + 1; j < len(toks) && j < i+4; j++ {
			if g := s[toks[j-1].end:toks[j].start]; len(g) > 2 || strings.TrimSpace(g) != "" && g != "-" ||
				!isPrefix(phrase[0]) && !isPrefix(phrase[1]) {
				break
			}
			next := concat(f.parts[toks[j].first:toks[j].last])
			phrase = [2]string{phrase[0] + next[0], phrase[1] + next[1]}
			fn(t.start, toks[j].end, phrase)
		}
	}
}

// tok is a token of a text: where it is, and its parts' folds
// (folder.parts[first:last]).
type tok struct{ start, end, first, last int }

// tokenRune reports whether r belongs to an identifier-like token.
func tokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || unicode.Is(unicode.Cf, r) ||
		strings.ContainsRune("_-./:", r)
}

// qualifiedParts splits t at each qualifier ('.', '/', ':' or "__"):
// "mcp__mail__send_email" gives "mcp", "mail", "send_email".
func qualifiedParts(t string) []string {
	var out []string
	last := 0
	for i := 0; i < len(t); i++ {
		switch {
		case strings.ContainsRune("./:", rune(t[i])):
			out = append(out, t[last:i])
			last = i + 1
		case t[i] == '_' && i+1 < len(t) && t[i+1] == '_':
			out = append(out, t[last:i])
			for i+1 < len(t) && t[i+1] == '_' {
				i++
			}
			last = i + 1
		}
	}
	out = append(out, t[last:])
	return slices.DeleteFunc(out, func(p string) bool { return p == "" })
}

// folder memoises folds (the texts of a lock repeat their words) and
// keeps the buffers spellings reuses.
type folder struct {
	memo  map[string][2]string
	toks  []tok
	parts [][2]string
}

func (f *folder) folds(name string) [2]string {
	if v, ok := f.memo[name]; ok {
		return v
	}
	if f.memo == nil {
		f.memo = map[string][2]string{}
	}
	v := folds(name)
	f.memo[name] = v
	return v
}
