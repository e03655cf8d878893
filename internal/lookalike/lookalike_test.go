package lookalike

import (
	"strings"
	"testing"
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
