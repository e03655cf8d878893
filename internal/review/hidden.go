package review

import (
	"encoding/base64"
	"encoding/hex"
	"html"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"golang.org/x/text/unicode/norm"
)

// Hidden text: what a person reviewing a diff cannot see or read at a
// glance. Each detector counts what it finds in a string, by reason; the
// label fires for a reason the observed text has more of than the locked
// text (text already reviewed does not fire again).

// hiddenCounts adds to into the hidden text in s, by reason.
func hiddenCounts(s string, b baseline, into map[string]int) {
	if _, sus := termtext.Quote(s); sus {
		into["invisible, bidi, tag or control characters"]++
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) }) {
		if confusableMix(lookalike.Scripts(w)) {
			into["a word mixing look-alike scripts"]++
		}
	}
	if !isPlain(s) {
		for _, r := range s {
			if (unicode.IsLetter(r) || unicode.IsNumber(r)) && norm.NFKC.String(string(r)) != string(r) {
				into["letters in a compatibility form (full-width, mathematical, ligature)"]++
			}
		}
	}
	if n := len(leetTokens(s)); n >= 2 {
		into["leetspeak (digits for letters)"] += n
	}
	for _, e := range encodings {
		for _, m := range e.re.get().FindAllString(s, -1) {
			if _, ok := e.decode(m); ok {
				into["an encoded run ("+e.name+")"]++
			}
		}
	}
	if tags := tagText(s); tags != "" {
		into["an encoded run (tag characters)"]++
	}
	for _, c := range concealers {
		if n := len(c.re.get().FindAllStringIndex(s, -1)); n > 0 {
			into[c.why] += n
		}
	}
	b.foreign(s, into)
}

// concealers are ways to keep text out of a rendered view or a screen.
var concealers = []struct {
	why string
	re  *lazyRegexp
}{
	{"an HTML comment", &lazyRegexp{expr: `<!--`}},
	{"a Markdown comment", &lazyRegexp{expr: `(?m)^[ \t]*\[[^\]\n]*\]:[ \t]*(#|<>)`}},
	{"a run of blank lines", &lazyRegexp{expr: `\n([ \t\p{Zs}]*\n){3,}`}},
	{"a run of spaces", &lazyRegexp{expr: `[ \t\p{Zs}]{40,}`}},
}

// encodings are runs of encoded text: each is hidden text when it decodes
// to readable text.
var encodings = []struct {
	name   string
	re     *lazyRegexp
	decode func(string) (string, bool)
}{
	{"base64", &lazyRegexp{expr: `[A-Za-z0-9+/_-]{16,}={0,2}`}, decodeBase64},
	{"hex", &lazyRegexp{expr: `\b(?:[0-9a-fA-F]{2}){10,}\b`}, func(m string) (string, bool) {
		b, err := hex.DecodeString(m)
		return readable(b, err)
	}},
	{"percent escapes", &lazyRegexp{expr: `(?:%[0-9A-Fa-f]{2}){5,}`}, func(m string) (string, bool) {
		s, err := url.PathUnescape(m)
		return readable([]byte(s), err)
	}},
	{"HTML entities", &lazyRegexp{expr: `(?:&#(?:[xX][0-9a-fA-F]+|[0-9]+);){4,}`}, func(m string) (string, bool) {
		return readable([]byte(html.UnescapeString(m)), nil)
	}},
	{"\\u escapes", &lazyRegexp{expr: `(?:\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}){4,}`}, func(m string) (string, bool) {
		s, err := strconv.Unquote(`"` + m + `"`)
		return readable([]byte(s), err)
	}},
}

func decodeBase64(m string) (string, bool) {
	t := strings.TrimRight(m, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(t); err == nil {
			if s, ok := readable(b, nil); ok {
				return s, true
			}
		}
	}
	return "", false
}

// readable reports whether b is text a person would read: valid UTF-8 of
// at least 8 bytes, nearly all printable, with letters and a space.
func readable(b []byte, err error) (string, bool) {
	if err != nil || len(b) < 8 || !utf8.Valid(b) {
		return "", false
	}
	s := string(b)
	printable, letters := 0, 0
	for _, r := range s {
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			printable++
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	n := utf8.RuneCountInString(s)
	return s, printable*10 >= n*9 && letters*2 >= n && strings.ContainsAny(s, " \n")
}

// tagText is the ASCII that a run of Unicode tag characters (U+E0020 to
// U+E007E) spells: invisible on screen, read by models.
func tagText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xe0020 && r <= 0xe007e {
			b.WriteRune(r - 0xe0000)
		}
	}
	return b.String()
}

// leet maps the digits leetspeak writes for letters.
func leet(r rune) rune {
	switch r {
	case '0':
		return 'o'
	case '1':
		return 'i'
	case '3':
		return 'e'
	case '4':
		return 'a'
	case '5':
		return 's'
	case '7':
		return 't'
	}
	return 0
}

// leetTokens are the words of s written with digits for letters
// ("1gn0r3", "pr3v10us"), decoded: at least three letters, every digit one
// leetspeak uses, and a digit followed by a letter (a version or size such
// as "sha1" or "4xx" has its digits at one end, or too few letters).
func leetTokens(s string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		letters, inner := 0, false
		ok := true
		prevDigit := false
		for _, r := range t {
			switch {
			case unicode.IsLetter(r):
				letters++
				inner = inner || prevDigit
				prevDigit = false
			case leet(r) != 0:
				prevDigit = true
			default:
				ok = false
			}
		}
		if ok && letters >= 3 && inner {
			out = append(out, strings.Map(func(r rune) rune {
				if l := leet(r); l != 0 {
					return l
				}
				return r
			}, t))
		}
	}
	return out
}

// readings are the forms of s the text rules also read: as seen on screen
// (compatibility forms folded, invisible characters dropped, look-alike
// letters mapped), with leetspeak decoded, and every encoded run decoded.
// s itself is not among them.
func readings(s string) []string {
	var out []string
	seen := visible(s)
	if sk := lookalike.Skeleton(seen); sk != s {
		out = append(out, sk)
	}
	if ts := leetTokens(seen); len(ts) > 0 {
		out = append(out, unleet(seen))
	}
	for _, e := range encodings {
		for _, m := range e.re.get().FindAllString(s, -1) {
			if d, ok := e.decode(m); ok {
				out = append(out, d)
			}
		}
	}
	if t := tagText(s); t != "" {
		out = append(out, t)
	}
	return out
}

// unleet is s with the digits of its leetspeak words read as letters.
func unleet(s string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := s[start:end]
		if ts := leetTokens(w); len(ts) == 1 {
			w = ts[0]
		}
		b.WriteString(w)
		start = -1
	}
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		b.WriteRune(r)
	}
	flush(len(s))
	return b.String()
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
