package lookalike

import (
	"sort"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestCheck(t *testing.T) {
	nfd := "cafe\u0301"
	for _, c := range []struct {
		in   string
		want []string // substrings, one per reason; none means clean
	}{
		{"echo", nil},
		{"café", nil},
		{"read_file", nil},
		{"\u0435cho", []string{"mixes scripts Cyrillic and Latin", `looks like "echo"`}},
		{nfd, []string{"not in Unicode NFC form"}},
		{"\uff45cho", []string{`looks like "echo"`}}, // fullwidth e
		{"ессо", []string{`looks like "ecco"`}},      // all Cyrillic: one script, still a look-alike
		{"λ", nil},
	} {
		got := Check(c.in)
		if len(got) != len(c.want) {
			t.Errorf("Check(%+q) = %q, want %d reasons %q", c.in, got, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("Check(%+q)[%d] = %q, want it to contain %q", c.in, i, got[i], w)
			}
		}
	}
}

func TestCollisions(t *testing.T) {
	got := Collisions([]string{"echo", "\u0435cho", "café", "cafe\u0301", "add"})
	want := []string{`"cafe\u0301" and "caf\u00e9" look alike`, `"echo" and "\u0435cho" look alike`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Collisions = %q, want %q", got, want)
	}
}

func TestSpells(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"mcpsum approval", true},
		{"MCP-Sum", true},
		{"m\u200bc\u200bp\u200bs\u200bu\u200bm", true}, // zero-width spaces between the letters
		{"m\u0441psum", true},                          // Cyrillic es
		{"\uff4d\uff43\uff50\uff53\uff55\uff4d", true}, // fullwidth
		{"rncpsurn", true},                             // "rn" reads as "m"
		{"muspcm", true},                               // shown reversed by right-to-left text
		{"\u202eMUSPCM\u202c", true},                   // right-to-left override
		{"mcp\u202esu\u202cm", true},                   // a bidi control can reorder any part
		{"Approve sending the report?", false},
		{"mcp server summary", false},
		{"\u05e9\u05dc\u05d5\u05dd", false},                         // Hebrew text without controls
		{"\u200f\u05e9\u05dc\u05d5\u05dd\u200f: mcp server", false}, // right-to-left marks reorder no letters
		{"sum\u2067mcp", true},                                      // an isolate can
	} {
		if got := Spells(c.in, "mcpsum"); got != c.want {
			t.Errorf("Spells(%+q, mcpsum) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestConfusable: the UTS #39 skeleton makes look-alike spellings one,
// across scripts, compatibility forms and ASCII look-alikes, and keeps
// different names apart.
func TestConfusable(t *testing.T) {
	same := [][2]string{
		{"read_file", "r\u0435ad_file"},        // Cyrillic е
		{"send_email", "send_\u0435m\u0430il"}, // Cyrillic е and а
		{"read_file", "read_fiIe"},             // capital I for l
		{"paypal", "p\u0430yp\u0430l"},         // Cyrillic а
		{"file1", "filel"},                     // digit one and l
		{"scope", "\u0455\u0441\u043e\u0440e"}, // Cyrillic ѕсор
		{"\u01c3", "!"},                        // Latin letter retroflex click
	}
	for _, p := range same {
		if Confusable(p[0]) != Confusable(p[1]) {
			t.Errorf("%+q and %+q: skeletons %+q and %+q differ", p[0], p[1], Confusable(p[0]), Confusable(p[1]))
		}
	}
	for _, p := range [][2]string{{"read_file", "read_files"}, {"send_email", "send_mail"}, {"echo", "ech"}} {
		if Confusable(p[0]) == Confusable(p[1]) {
			t.Errorf("%+q and %+q share a skeleton", p[0], p[1])
		}
	}
}

// TestConfusableASCII: the fast path for ASCII gives what the table and
// normalisation give.
func TestConfusableASCII(t *testing.T) {
	slow := func(s string) string {
		var b strings.Builder
		for _, r := range norm.NFD.String(s) {
			i := sort.Search(len(confusables), func(i int) bool { return confusables[i].r >= r })
			if i < len(confusables) && confusables[i].r == r {
				b.WriteString(confusables[i].s)
				continue
			}
			b.WriteRune(r)
		}
		return norm.NFD.String(b.String())
	}
	var all strings.Builder
	for c := 0x20; c < 0x7f; c++ {
		all.WriteByte(byte(c))
		if got, want := Confusable(string(rune(c))), slow(string(rune(c))); got != want {
			t.Errorf("%q: %q, want %q", rune(c), got, want)
		}
	}
	for _, s := range []string{all.String(), "read_file", "mcp__memory__create_entities", "l1I|"} {
		if got, want := Confusable(s), slow(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}
