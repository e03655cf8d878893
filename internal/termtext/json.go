package termtext

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// InertJSON makes encoded JSON safe to print on a terminal without changing
// what it means: runes that could fool a terminal or a reader (bidi
// controls, zero-width and other invisible or non-printable characters a
// server may have written) become \u escapes (UTF-16 surrogate pairs above
// U+FFFF), invalid UTF-8 becomes \ufffd, and a server's \u escapes of
// printable characters (go-sdk servers write > as \u003e) become the
// character, so a reader sees "a > b". Such runes can only stand inside
// JSON strings, so the result decodes to the same value.
func InertJSON(b []byte) []byte {
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte(`\ufffd`))
	}
	b = unescapePrintable(b)
	ascii := 0
	for ascii < len(b) && b[ascii] < utf8.RuneSelf {
		ascii++
	}
	if ascii == len(b) {
		return b[:len(b):len(b)] // nothing to escape (capped: an append copies)
	}
	out := append(make([]byte, 0, len(b)+len(b)/8), b[:ascii]...)
	for i := ascii; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r < utf8.RuneSelf || unicode.IsPrint(r) {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

// unescapePrintable replaces each \uXXXX escape (a surrogate pair counts
// as one) of a printable character other than '"' and '\\' by the
// character; every other escape stays as it is.
func unescapePrintable(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] != 'u' {
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		r, n := hexRune(b[i:])
		if n > 0 && utf16.IsSurrogate(r) {
			if r2, n2 := hexRune(b[i+n:]); n2 > 0 && utf16.DecodeRune(r, r2) != unicode.ReplacementChar {
				r, n = utf16.DecodeRune(r, r2), n+n2
			}
		}
		if n == 0 || r == '"' || r == '\\' || !unicode.IsPrint(r) {
			out = append(out, b[i])
			continue
		}
		out = utf8.AppendRune(out, r)
		i += n - 1
	}
	return out
}

// hexRune reads a \uXXXX escape at the start of b: its rune and length 6,
// or 0 when b does not start with one.
func hexRune(b []byte) (rune, int) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, 0
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 6
}
