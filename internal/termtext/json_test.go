package termtext

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// JSON output keeps server text's value but never its invisible characters.
func TestInertJSONEscapesInvisible(t *testing.T) {
	in := map[string]string{"d": "harmless \u202egnp.exe\u202c and\u200b hidden\u2066 \U000e0041 ok é 😀 \x1b[31m"}
	enc, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := InertJSON(enc)
	for _, raw := range []string{"\u202e", "\u202c", "\u200b", "\u2066", "\U000e0041", "\x1b"} {
		if strings.Contains(string(out), raw) {
			t.Errorf("raw %q in output: %s", raw, out)
		}
	}
	if !strings.Contains(string(out), "é 😀") {
		t.Errorf("printable text was escaped: %s", out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["d"] != in["d"] {
		t.Errorf("round trip: %v, %q", err, back["d"])
	}
}

// A server's escapes of printable characters (go-sdk writes <, > and & as
// \u003c, \u003e, \u0026; others escape é or emoji) print as themselves;
// what a terminal must not get raw (ESC, bidi, zero-width, a lone
// surrogate) and the escapes JSON needs (quote, backslash) stay escaped;
// invalid UTF-8 becomes U+FFFD. The JSON means the same.
func TestInertJSONUnescapesPrintable(t *testing.T) {
	raw := []byte(`{"description":"a \u003e b \u0026\u0026 c \u003c d \u00e9 \ud83d\ude00 \u001b[31m \u202e \u200b \ud800 x \" \\u003e \\"}`)
	got := string(InertJSON(raw))
	want := `{"description":"a > b && c < d é 😀 \u001b[31m \u202e \u200b \ud800 x \" \\u003e \\"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(got), &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("not the same JSON: %v vs %v", a, b)
	}
	if got := string(InertJSON([]byte("{\"d\":\"bad \xff byte\"}"))); got != "{\"d\":\"bad \ufffd byte\"}" {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  one line  ", 20, "one line"},
		{"first\nsecond", 20, "first …"},
		{"first\n  \n", 20, "first"},
		{"abcdefghij", 4, "abcd…"},
		{"red \x1b[31m\r\nnext", 40, `red \u001b[31m …`},
	} {
		if got := FirstLine(c.in, c.max); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
