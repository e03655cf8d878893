package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote renders s, something a server sent, as one printable line that cannot
// move the cursor, recolour a terminal or reorder text. It adds no surrounding
// quotes. Escapes:
//
//   - a backslash becomes \\ (so the rendering is unambiguous);
//   - newline, tab and carriage return become \n, \t and \r;
//   - every other C0 control and DEL (ESC of an ANSI sequence included), C1
//     controls, bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E,
//     U+2066-U+2069), zero-width and invisible characters (U+200B-U+200D,
//     U+2060-U+2064, U+FEFF), tag characters (U+E0000-U+E007F), variation
//     selectors supplement (U+E0100-U+E01EF), line/paragraph separators and
//     every other rune that unicode.IsPrint rejects become \uXXXX (or
//     \UXXXXXXXX above U+FFFF), except that the plain space stays as is;
//   - each byte of invalid UTF-8 becomes \xNN.
//
// suspicious is true when anything was escaped other than what ordinary
// multi-line text contains: "\n", "\t", "\r\n", backslashes, and Unicode space
// separators such as U+00A0 (escaped for visibility, not suspicious). So a
// lone "\r", an ANSI escape, a bidi or zero-width character, a tag character or
// invalid UTF-8 makes a description suspicious; a long description with line
// breaks and indentation does not.
func Quote(s string) (quoted string, suspicious bool) {
	var b strings.Builder
	_, suspicious = quoteInto(&b, s, -1, false)
	return b.String(), suspicious
}

// TruncateQuote is Quote for error messages: at most about max bytes of
// rendering (0 means 200, a negative max no limit), cut at an escape boundary, followed by
// "…(N more bytes)" when s was cut. Like Quote it adds no quotes and leaves
// '"' as is (see Quoted for a rendering in quotes).
func TruncateQuote(s string, max int) string {
	var b strings.Builder
	if n := truncInto(&b, s, max, false); n < len(s) {
		fmt.Fprintf(&b, "…(%d more bytes)", len(s)-n)
	}
	return b.String()
}

// Quoted renders s inside double quotes for a message: Quote's escaping plus
// \" for a double quote, cut like TruncateQuote.
func Quoted(s string, max int) string {
	var b strings.Builder
	b.WriteByte('"')
	n := truncInto(&b, s, max, true)
	b.WriteByte('"')
	if n < len(s) {
		fmt.Fprintf(&b, "…(%d more bytes)", len(s)-n)
	}
	return b.String()
}

func truncInto(b *strings.Builder, s string, max int, escQuote bool) int {
	if max < 0 {
		n, _ := quoteInto(b, s, -1, escQuote)
		return n
	}
	if max == 0 {
		max = 200
	}
	n, _ := quoteInto(b, s, b.Len()+max, escQuote)
	return n
}

// quoteInto appends the rendering of s to b, stopping before b would exceed
// limit bytes (limit < 0: no limit). It returns how many bytes of s were
// rendered. escQuote also escapes '"'.
func quoteInto(b *strings.Builder, s string, limit int, escQuote bool) (consumed int, suspicious bool) {
	var esc [16]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var out []byte
		sus := false
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(esc[:0], `\x%02x`, s[i])
			sus = true
		case r == '\\':
			out = append(esc[:0], `\\`...)
		case r == '"' && escQuote:
			out = append(esc[:0], `\"`...)
		case r == '\n':
			out = append(esc[:0], `\n`...)
		case r == '\t':
			out = append(esc[:0], `\t`...)
		case r == '\r':
			out = append(esc[:0], `\r`...)
			sus = i+1 >= len(s) || s[i+1] != '\n'
		case r == ' ':
			out = append(esc[:0], ' ')
		case needsEscape(r):
			if r > 0xFFFF {
				out = fmt.Appendf(esc[:0], `\U%08x`, r)
			} else {
				out = fmt.Appendf(esc[:0], `\u%04x`, r)
			}
			sus = !unicode.Is(unicode.Zs, r)
		default:
			if limit >= 0 && b.Len()+size > limit {
				return i, suspicious
			}
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		if limit >= 0 && b.Len()+len(out) > limit {
			return i, suspicious
		}
		b.Write(out)
		suspicious = suspicious || sus
		i += size
	}
	return len(s), suspicious
}

// needsEscape reports runes that must not reach a terminal or a review as is.
func needsEscape(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi controls
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff:
		return true // zero-width and invisible operators
	case r >= 0xe0000 && r <= 0xe007f, r >= 0xe0100 && r <= 0xe01ef:
		return true // tags, variation selectors supplement (used to smuggle text)
	}
	return !unicode.IsPrint(r)
}

// ShellArg renders one argument for a command line a user may copy into a
// POSIX shell: as is when it holds nothing a shell treats specially, in
// single quotes when it is printable, else as $'…' with Quote's escapes.
func ShellArg(s string) string {
	q, sus := Quote(s)
	if !sus && q == s && s != "" && !strings.ContainsAny(s, " \t'\"\\$`!*?[](){}<>|&;#~") {
		return s
	}
	if !sus && q == s {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return "$'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

// ShellArgs is ShellArg of each argument, joined by spaces.
func ShellArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ShellArg(a)
	}
	return strings.Join(out, " ")
}

// List renders a list of untrusted strings for a message: ["a", "b"], each
// Quoted to at most each bytes, and after max of them how many more.
func List(vs []string, max, each int) string {
	n := min(len(vs), max)
	out := make([]string, n)
	for i, v := range vs[:n] {
		out[i] = Quoted(v, each)
	}
	more := ""
	if len(vs) > n {
		more = fmt.Sprintf("…(%d more)", len(vs)-n)
	}
	return "[" + strings.Join(out, ", ") + "]" + more
}

// FirstLine is the first line of s (surrounding space trimmed), escaped as
// Quote does and cut to max runes with "…"; " …" marks further lines that
// were left out. It is the one-line rendering of server text in a listing.
func FirstLine(s string, max int) string {
	first, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	q, _ := Quote(strings.TrimRight(first, "\r"))
	r := []rune(q)
	if len(r) > max {
		return string(r[:max]) + "…"
	}
	if more && strings.TrimSpace(rest) != "" {
		return q + " …"
	}
	return q
}

// Size writes a byte count (a limit) as a message says it: "64 MiB",
// "16 KiB", or "100-byte" when it is not a whole number of either.
func Size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}
