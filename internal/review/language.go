package review

import (
	"slices"
	"sync"
	"unicode"

	"github.com/mcpsum/mcpsum/internal/lookalike"
)

// Which script and language a server writes in, so that text in another
// one stands out: an order in German, French or Chinese slipped into an
// English server is text its reviewer may not read at a glance.

// stopwords are frequent function words of languages written in Latin
// letters, chosen so that no word is common in two of them (English "die",
// "on" or "a" are not German, French or Spanish markers).
var stopwords = []struct {
	lang  string
	words []string
}{
	{"English", []string{"the", "and", "of", "to", "is", "in", "for", "with", "this", "that", "it", "be", "are", "or", "by", "from", "as", "an", "at", "you", "your", "not", "if", "will", "can", "which", "when", "all", "any", "each", "its", "returns", "use", "must", "should", "into", "only", "then", "before", "after"}},
	{"German", []string{"der", "das", "und", "nicht", "mit", "ist", "ein", "eine", "einen", "dem", "des", "sie", "ihr", "ihre", "ihren", "auf", "für", "vor", "jeder", "jede", "jedem", "zu", "von", "werden", "wird", "oder", "auch", "sich", "dass", "nach", "bei", "aus", "alle", "wenn", "nur", "noch", "immer", "diese", "dieser", "dieses", "bitte", "datei", "inhalt", "lies", "sende", "füge", "zum", "zur", "im"}},
	{"French", []string{"le", "la", "les", "du", "et", "est", "une", "pour", "dans", "avec", "sur", "pas", "ne", "que", "qui", "vous", "votre", "vos", "chaque", "avant", "ce", "cette", "ses", "au", "aux", "lisez", "fichier", "contenu", "toujours", "envoyez", "joignez", "réponse", "être", "sont", "où", "appel"}},
	{"Spanish", []string{"el", "los", "las", "del", "y", "una", "con", "para", "por", "que", "usted", "su", "sus", "cada", "antes", "siempre", "archivo", "contenido", "lee", "envía", "incluye", "también", "esta", "este", "es", "al"}},
	{"Italian", []string{"il", "gli", "della", "delle", "di", "che", "per", "con", "una", "non", "sempre", "prima", "ogni", "leggi", "invia", "contenuto", "anche", "questo", "questa", "sono", "nel", "nella"}},
	{"Portuguese", []string{"os", "do", "da", "dos", "das", "em", "um", "uma", "com", "não", "para", "sempre", "antes", "cada", "leia", "envie", "conteúdo", "arquivo", "também", "você", "seu", "sua", "é", "ao"}},
	{"Dutch", []string{"het", "een", "en", "van", "niet", "met", "voor", "op", "zijn", "altijd", "bestand", "inhoud", "lees", "stuur", "ook", "elke", "deze", "dit", "wordt", "naar", "bij", "uw", "je"}},
}

// stopwordLang maps each stopword to its languages (a word in two lists
// counts for both).
func stopwordLang() map[string][]string {
	stopwordMap.once.Do(func() {
		m := map[string][]string{}
		for _, l := range stopwords {
			for _, w := range l.words {
				m[w] = append(m[w], l.lang)
			}
		}
		stopwordMap.m = m
	})
	return stopwordMap.m
}

// stopwordMap is stopwordLang's memo: plain data, no initialiser.
var stopwordMap struct {
	once sync.Once
	m    map[string][]string
}

// language guesses the language of Latin-script words: the one with the
// most stopwords, when it has at least two and more than any other ("" when
// nothing stands out).
func language(ws []string) string {
	n := map[string]int{}
	for _, w := range ws {
		for _, l := range stopwordLang()[w] {
			n[l]++
		}
	}
	best, second := "", 0
	for _, l := range sortedKeys(n) {
		switch {
		case best == "" || n[l] > n[best]:
			second = n[best]
			best = l
		case n[l] > second:
			second = n[l]
		}
	}
	if best == "" || n[best] < 2 || n[best] == second {
		return ""
	}
	return best
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// baseline is the script and language a server writes in.
type baseline struct {
	scripts  []string // scripts of at least 5% of its letters
	language string   // of its Latin-script text; "" when none stands out
}

// baselineOf reads the texts of a server: the scripts of its letters and
// the language its sentences are mostly in. No letters: Latin.
func baselineOf(texts []string) baseline {
	count := map[string]int{}
	total := 0
	langs := map[string]int{}
	for _, s := range texts {
		for _, r := range s {
			if unicode.IsLetter(r) {
				if sc := scriptOf(r); sc != "" {
					count[sc]++
					total++
				}
			}
		}
		for _, sent := range sentences(s) {
			if l := language(sent); l != "" {
				langs[l] += len(sent)
			}
		}
	}
	b := baseline{}
	for _, sc := range sortedKeys(count) {
		if count[sc]*20 >= total {
			b.scripts = append(b.scripts, sc)
		}
	}
	if len(b.scripts) == 0 {
		b.scripts = []string{"Latin"}
	}
	for _, l := range sortedKeys(langs) {
		if b.language == "" || langs[l] > langs[b.language] {
			b.language = l
		}
	}
	if b.language == "" {
		b.language = "English"
	}
	return b
}

// scriptOf is the script of a letter; Han, Hiragana and Katakana count as
// one (Japanese mixes them), as do Hangul and Han.
func scriptOf(r rune) string {
	if r < 0x80 {
		return "Latin"
	}
	sc := lookalike.Scripts(string(r))
	if len(sc) != 1 {
		return ""
	}
	switch sc[0] {
	case "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo":
		return "CJK"
	}
	return sc[0]
}

// foreign counts, in s, the letters of scripts b does not write in, and the
// sentences in a language other than b's, by what they are ("script
// Cyrillic", "language German"). The zero baseline counts nothing.
func (b baseline) foreign(s string, into map[string]int) {
	if b.scripts == nil {
		return
	}
	for _, r := range visible(s) {
		if !unicode.IsLetter(r) {
			continue
		}
		if sc := scriptOf(r); sc != "" && !slices.Contains(b.scripts, sc) {
			into["text in the "+sc+" script"]++
		}
	}
	for _, sent := range sentences(s) {
		if len(sent) < 4 {
			continue
		}
		if l := language(sent); l != "" && l != b.language {
			into["a sentence in "+l]++
		}
	}
}
