package review

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Wording: whether a changed text can carry a new instruction. A change is
// descriptive only when the new text's words are the old text's, in the
// same order within each sentence, with words at most deleted (never a
// negation) and sentences at most reordered, compared after normalising
// (compatibility forms folded, invisible characters dropped, letter case
// and punctuation ignored). Anything else is reworded.

// visible is s as a reader sees it: compatibility forms folded (NFKC:
// full-width and mathematical letters become plain ones) and invisible
// characters (format characters: zero-width, bidi, tags; variation
// selectors) dropped.
func visible(s string) string {
	if isPlain(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) || r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef {
			return -1
		}
		return r
	}, norm.NFKC.String(s))
}

// isPlain reports whether s is printable ASCII (or ordinary whitespace):
// nothing to fold.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// words are the lower-cased words of s after visible: runs of letters,
// digits and combining marks.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(visible(s)), notWordRune)
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r)
}

// sentences splits s into sentences (at . ! ? ; : and line breaks, and
// their CJK forms), each as its words; empty sentences are dropped.
func sentences(s string) [][]string {
	var out [][]string
	for _, part := range strings.FieldsFunc(visible(s), func(r rune) bool {
		return strings.ContainsRune(".!?;:\n\r。！？；：", r)
	}) {
		if w := words(part); len(w) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// negation reports words whose deletion turns a prohibition into an order
// ("do not read ~/.ssh" → "do read ~/.ssh"); "doesn't" splits into "doesn"
// and "t".
func negation(w string) bool {
	switch w {
	case "not", "no", "never", "none", "nothing", "nor", "neither", "without", "cannot", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "wouldn", "shouldn", "mustn", "t", "avoid", "except", "unless", "only":
		return true
	}
	return false
}

// Rearranged reports whether cur says nothing old did not: the same words
// after normalising (whitespace, case, punctuation), or each sentence of
// cur a deletion from its own sentence of old (sentences may be reordered;
// a negation may not be deleted from a sentence that stays).
func Rearranged(old, cur string) bool {
	ow, cw := words(old), words(cur)
	if slices.Equal(ow, cw) {
		return true
	}
	olds := sentences(old)
	used := make([]bool, len(olds))
next:
	for _, s := range sentences(cur) {
		for i, o := range olds {
			if !used[i] && deletionOf(o, s) {
				used[i] = true
				continue next
			}
		}
		return false
	}
	return true
}

// deletionOf reports whether cur is old with words deleted, none of them a
// negation.
func deletionOf(old, cur []string) bool {
	j := 0
	for _, w := range old {
		if j < len(cur) && cur[j] == w {
			j++
			continue
		}
		if negation(w) {
			return false
		}
	}
	return j == len(cur)
}

// newWords lists cur's words that old does not hold (for a reason line),
// at most max of them.
func newWords(old, cur string, max int) []string {
	have := map[string]bool{}
	for _, w := range words(old) {
		have[w] = true
	}
	var out []string
	for _, w := range words(cur) {
		if !have[w] {
			have[w] = true
			out = append(out, w)
			if len(out) == max {
				break
			}
		}
	}
	return out
}
