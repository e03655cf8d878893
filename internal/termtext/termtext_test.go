package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want   string
		suspicious bool
	}{
		{"plain text", "plain text", false},
		{"café 🎉 – ok", "café 🎉 – ok", false},
		{"line1\nline2\tindented\r\nline3", `line1\nline2\tindented\r\nline3`, false},
		{`C:\path`, `C:\\path`, false},
		{"no\u00a0break", `no\u00a0break`, false},
		{"\x1b[31mred\x1b[0m", `\u001b[31mred\u001b[0m`, true},
		{"over\rwrite", `over\rwrite`, true},
		{"bell\a", `bell\u0007`, true},
		{"del\x7f", `del\u007f`, true},
		{"c1\u0085\u009b", `c1\u0085\u009b`, true},
		{"rtl \u202egnp.exe\u202c", `rtl \u202egnp.exe\u202c`, true},
		{"isolate \u2066x\u2069 \u200e\u200f\u061c", `isolate \u2066x\u2069 \u200e\u200f\u061c`, true},
		{"zero\u200bwidth\u200c\u200d\u2060\ufeff", `zero\u200bwidth\u200c\u200d\u2060\ufeff`, true},
		{"tag\U000E0041\U000E007F", `tag\U000e0041\U000e007f`, true},
		{"vs\U000E0100", `vs\U000e0100`, true},
		{"sep\u2028x", `sep\u2028x`, true},
		{"private\ue000", `private\ue000`, true},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`, true},
		{"", "", false},
	}
	for _, tc := range tests {
		got, sus := Quote(tc.in)
		if got != tc.want || sus != tc.suspicious {
			t.Errorf("Quote(%q) = %q, %v; want %q, %v", tc.in, got, sus, tc.want, tc.suspicious)
		}
	}
}

func TestQuoteOutputIsSafe(t *testing.T) {
	// Every rune of every rendering is printable ASCII or a printable non-space rune.
	var b strings.Builder
	for r := rune(0); r < 0x30000; r++ {
		b.WriteRune(r)
	}
	b.WriteString("\xff\xc0\x80")
	got, sus := Quote(b.String())
	if !sus {
		t.Fatal("not suspicious")
	}
	if !utf8.ValidString(got) {
		t.Fatal("rendering is not valid UTF-8")
	}
	for _, r := range got {
		if needsEscape(r) {
			t.Fatalf("rendering contains %U", r)
		}
	}
}

func TestTruncateQuote(t *testing.T) {
	s := strings.Repeat("é", 100) + "\x1b"
	got := TruncateQuote(s, 20)
	if got != strings.Repeat("é", 10)+`…(181 more bytes)` {
		t.Fatalf("got %q", got)
	}
	// An escape is never cut in half.
	got = TruncateQuote("ab\x1bcd", 5)
	if got != `ab…(3 more bytes)` {
		t.Fatalf("got %q", got)
	}
	if got := TruncateQuote(`say "hi"\`, 0); got != `say "hi"\\` {
		t.Fatalf("got %q", got)
	}
	if got := Quoted(`say "hi"\`+"\x1b", 0); got != `"say \"hi\"\\\u001b"` {
		t.Fatalf("got %q", got)
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[0m", "\u202e", "\xff", `\u001b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, _ := Quote(s)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out")
		}
		for _, r := range got {
			if needsEscape(r) {
				t.Fatalf("unescaped %U in %q", r, got)
			}
		}
		if t2 := TruncateQuote(s, 50); len(t2) > 52+len("…(99999999 more bytes)") {
			t.Fatalf("truncation too long: %d", len(t2))
		}
	})
}

func TestSize(t *testing.T) {
	for n, want := range map[int]string{64 << 20: "64 MiB", 16 << 10: "16 KiB", 1<<20 + 1: "1048577-byte", 100: "100-byte"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
