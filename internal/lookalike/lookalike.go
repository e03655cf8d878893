package lookalike

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Check returns why s could be mistaken for another name (nil: nothing).
func Check(s string) []string {
	var why []string
	if !norm.NFC.IsNormalString(s) {
		why = append(why, "not in Unicode NFC form (the same letters can be written with other bytes)")
	}
	if sc := Scripts(s); len(sc) > 1 {
		why = append(why, "mixes scripts "+strings.Join(sc, " and "))
	}
	if sk := Skeleton(s); sk != s && isPlainASCII(sk) {
		why = append(why, fmt.Sprintf("looks like %q", sk))
	}
	return why
}

// Collisions returns, for names that differ as bytes but share a skeleton,
// one line per group ("echo" and "\u0435cho" look alike), sorted.
func Collisions(names []string) []string {
	groups := map[string][]string{}
	for _, n := range names {
		sk := Skeleton(n)
		if !slices.Contains(groups[sk], n) {
			groups[sk] = append(groups[sk], n)
		}
	}
	var out []string
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		sort.Strings(g)
		q := make([]string, len(g))
		for i, n := range g {
			q[i] = fmt.Sprintf("%+q", n)
		}
		out = append(out, strings.Join(q, " and ")+" look alike")
	}
	sort.Strings(out)
	return out
}

// Scripts lists the scripts of s's letters (Common and Inherited, such as
// digits, punctuation and combining marks, are ignored), sorted.
func Scripts(s string) []string {
	var out []string
	for _, r := range s {
		if r < 0x80 {
			if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
				out = addScript(out, "Latin")
			}
			continue
		}
		if name := scriptOf(r); name != "" {
			out = addScript(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func addScript(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func scriptOf(r rune) string {
	for _, name := range []string{"Latin", "Cyrillic", "Greek", "Armenian", "Cherokee", "Georgian", "Arabic", "Hebrew", "Han", "Hiragana", "Katakana", "Hangul", "Devanagari", "Thai"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, t := range unicode.Scripts {
		if name == "Common" || name == "Inherited" {
			continue
		}
		if unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

// Skeleton maps s to a canonical look: compatibility forms folded (NFKC:
// fullwidth and mathematical letters become plain ones) and common
// Cyrillic, Greek and other homoglyphs of Latin letters and digits replaced
// by them. Two names with one skeleton look alike on a terminal.
func Skeleton(s string) string {
	s = norm.NFKD.String(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) && r != 0x301 && r != 0x300 && r != 0x308 && r != 0x302 && r != 0x303 {
			continue // invisible-ish combining marks; accents stay visible
		}
		if c, ok := homoglyph(r); ok {
			b.WriteRune(c)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// homoglyphs are letters that render like a Latin letter or digit in common
// terminal fonts (a subset of Unicode's confusables.txt for the scripts seen
// in practice).
var homoglyphs = [...][2]rune{
	// Cyrillic
	{'а', 'a'}, {'в', 'B'}, {'е', 'e'}, {'ё', 'ë'}, {'к', 'k'}, {'м', 'M'}, {'н', 'H'}, {'о', 'o'}, {'р', 'p'}, {'с', 'c'}, {'т', 'T'},
	{'у', 'y'}, {'х', 'x'}, {'ѕ', 's'}, {'і', 'i'}, {'ї', 'ï'}, {'ј', 'j'}, {'ԁ', 'd'}, {'ԛ', 'q'}, {'ԝ', 'w'}, {'һ', 'h'}, {'ӏ', 'l'}, {'ɡ', 'g'},
	{'А', 'A'}, {'В', 'B'}, {'Е', 'E'}, {'К', 'K'}, {'М', 'M'}, {'Н', 'H'}, {'О', 'O'}, {'Р', 'P'}, {'С', 'C'}, {'Т', 'T'}, {'У', 'Y'},
	{'Х', 'X'}, {'Ѕ', 'S'}, {'І', 'I'}, {'Ј', 'J'}, {'Ԁ', 'D'}, {'Ԛ', 'Q'}, {'Ԝ', 'W'}, {'Һ', 'h'}, {'Ӏ', 'l'},
	// Greek
	{'α', 'a'}, {'ο', 'o'}, {'ν', 'v'}, {'ι', 'i'}, {'κ', 'k'}, {'ρ', 'p'}, {'τ', 't'}, {'υ', 'u'}, {'χ', 'x'}, {'γ', 'y'},
	{'Α', 'A'}, {'Β', 'B'}, {'Ε', 'E'}, {'Ζ', 'Z'}, {'Η', 'H'}, {'Ι', 'I'}, {'Κ', 'K'}, {'Μ', 'M'}, {'Ν', 'N'}, {'Ο', 'O'},
	{'Ρ', 'P'}, {'Τ', 'T'}, {'Υ', 'Y'}, {'Χ', 'X'},
	// Armenian, Latin extensions and others
	{'օ', 'o'}, {'ս', 'u'}, {'ց', 'g'}, {'հ', 'h'}, {'ո', 'n'}, {'ı', 'i'}, {'ȷ', 'j'}, {'ℓ', 'l'}, {'ǀ', 'l'}, {'׀', 'l'},
	{'Ꭺ', 'A'}, {'Ᏼ', 'B'}, {'Ꮯ', 'C'}, {'Ꭼ', 'E'}, {'Ꮋ', 'H'}, {'Ꮶ', 'K'}, {'Ꮇ', 'M'}, {'Ꮲ', 'P'}, {'Ꮪ', 'S'}, {'Ꭲ', 'T'},
}

// homoglyph is the Latin letter or digit r renders like (ok false when r is
// none of the homoglyphs). The table is plain data and the map is built at
// first use: a map literal would be an initialiser run before every
// command's main, touching this package's code in every process.
func homoglyph(r rune) (rune, bool) {
	homoglyphMap.once.Do(func() {
		homoglyphMap.m = make(map[rune]rune, len(homoglyphs))
		for _, h := range homoglyphs {
			homoglyphMap.m[h[0]] = h[1]
		}
	})
	c, ok := homoglyphMap.m[r]
	return c, ok
}

var homoglyphMap struct {
	once sync.Once
	m    map[rune]rune
}

// Spells reports whether s could read as word (lower-case ASCII letters and
// digits) on a screen: after Skeleton, with everything but letters and
// digits dropped and letters lower-cased, the word appears forwards or
// backwards (right-to-left text reverses a run), with "rn" read as "m" and
// "vv" as "w" (they look alike in most fonts). Text holding a bidi
// embedding, override or isolate (U+202A-U+202E, U+2066-U+2069) can reorder
// any part of itself on screen, so it spells every word; the direction
// marks (U+200E, U+200F, U+061C), common in right-to-left text, cannot
// reorder Latin letters and are ignored like other non-letters.
func Spells(s, word string) bool {
	var b strings.Builder
	for _, r := range Skeleton(s) {
		switch {
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return true
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	seen := strings.NewReplacer("rn", "m", "vv", "w").Replace(b.String())
	rev := []rune(seen)
	slices.Reverse(rev)
	return strings.Contains(seen, word) || strings.Contains(string(rev), word) || strings.Contains(b.String(), word)
}

// Confusable is the UTS #39 skeleton of s: NFD, every character replaced by
// its prototype in Unicode's confusables.txt, NFD again. Two strings with
// one skeleton can be mistaken for each other ("ｒеad_fiIe" and
// "read_file" after lower-casing). Unlike Skeleton it maps plain ASCII too
// ("1" and "I" to "l", "m" to "rn"), so it is for comparing, not showing.
func Confusable(s string) string {
	if ascii, ok := confusableASCII(s); ok {
		return ascii
	}
	s = norm.NFD.String(s)
	var b strings.Builder
	for _, r := range s {
		i := sort.Search(len(confusables), func(i int) bool { return confusables[i].r >= r })
		if i < len(confusables) && confusables[i].r == r {
			b.WriteString(confusables[i].s)
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFD.String(b.String())
}

// asciiProto is the prototype of each ASCII character ("" when it is its
// own), taken from confusables at first use (a memo of plain data: no
// initialiser runs before main).
func asciiProto() *[128]string {
	asciiProtos.once.Do(func() {
		// Ranging over the array by value would copy all of it (151 KB)
		// onto the stack first: a frame that grew the stack to 256 KB.
		for i := range confusables {
			if c := &confusables[i]; c.r < 128 {
				asciiProtos.t[c.r] = c.s
			}
		}
	})
	return &asciiProtos.t
}

var asciiProtos struct {
	once sync.Once
	t    [128]string
}

// confusableASCII is Confusable of printable ASCII whose prototypes are
// ASCII too, without normalising (NFD leaves ASCII alone); ok is false
// for any other s.
func confusableASCII(s string) (string, bool) {
	t := asciiProto()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", false
		}
		p := t[c]
		if p == "" {
			if b.Cap() > 0 {
				b.WriteByte(c)
			}
			continue
		}
		if !isPlainASCII(p) {
			return "", false
		}
		if b.Cap() == 0 {
			b.Grow(len(s) + 8)
			b.WriteString(s[:i])
		}
		b.WriteString(p)
	}
	if b.Cap() == 0 {
		return s, true
	}
	return b.String(), true
}
