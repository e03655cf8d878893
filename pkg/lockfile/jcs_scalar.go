package lockfile

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The canonicaliser's scalars: strings (escapes decoded, surrogate pairs
// checked) and numbers (RFC 8259 grammar, ECMAScript 6 formatting).

// str reads the string token at i. raw reports that the token's bytes are
// already its canonical form (no escapes), in which case s is the value only
// if key is set; otherwise s is the decoded value.
func (c *canonicaliser) str(i int, key bool) (s string, end int, raw bool, err *pathError) {
	src := c.src
	j := i + 1
	for j < len(src) {
		b := src[j]
		if b == '"' {
			if key {
				s = string(src[i+1 : j])
			}
			return s, j + 1, true, nil
		}
		if b == '\\' {
			break
		}
		if b < 0x20 {
			return "", j, false, syntaxErr("control character in a string")
		}
		j++
	}
	if j >= len(src) {
		return "", j, false, syntaxErr("unterminated string")
	}
	// Escapes: decode.
	buf := append(make([]byte, 0, j-i+16), src[i+1:j]...)
	for j < len(src) {
		b := src[j]
		switch {
		case b == '"':
			return string(buf), j + 1, false, nil
		case b < 0x20:
			return "", j, false, syntaxErr("control character in a string")
		case b != '\\':
			buf = append(buf, b)
			j++
			continue
		}
		if j+1 >= len(src) {
			break
		}
		switch e := src[j+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
			j += 2
		case 'b':
			buf, j = append(buf, '\b'), j+2
		case 'f':
			buf, j = append(buf, '\f'), j+2
		case 'n':
			buf, j = append(buf, '\n'), j+2
		case 'r':
			buf, j = append(buf, '\r'), j+2
		case 't':
			buf, j = append(buf, '\t'), j+2
		case 'u':
			u, ok := hex4(src, j+2)
			if !ok {
				return "", j, false, syntaxErr("bad \\u escape")
			}
			j += 6
			r := rune(u)
			switch {
			case utf16.IsSurrogate(r) && r >= 0xDC00:
				return "", j, false, &pathError{msg: "lone UTF-16 surrogate \\u" + strconv.FormatInt(int64(u), 16)}
			case utf16.IsSurrogate(r):
				lo, ok := rune(0), false
				if j+1 < len(src) && src[j] == '\\' && src[j+1] == 'u' {
					var l uint16
					l, ok = hex4(src, j+2)
					lo = rune(l)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", j, false, &pathError{msg: "lone UTF-16 surrogate \\u" + strconv.FormatInt(int64(u), 16)}
				}
				r = utf16.DecodeRune(r, lo)
				j += 6
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", j, false, syntaxErr("bad escape in a string")
		}
	}
	return "", j, false, syntaxErr("unterminated string")
}

func hex4(b []byte, i int) (uint16, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var v uint16
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint16(c)
	}
	return v, true
}

// number reads the number at i (RFC 8259 grammar) and appends its RFC 8785
// form. Integers of up to 15 digits are their own canonical form.
func (c *canonicaliser) number(dst []byte, i int) ([]byte, int, *pathError) {
	src := c.src
	j := i
	if j < len(src) && src[j] == '-' {
		j++
	}
	digits := j
	switch {
	case j < len(src) && src[j] == '0':
		j++
	case j < len(src) && '1' <= src[j] && src[j] <= '9':
		j = skipDigits(src, j)
	default:
		return nil, j, syntaxErr("want a value")
	}
	intEnd := j
	if j < len(src) && src[j] == '.' {
		j++
		k := j
		j = skipDigits(src, j)
		if j == k {
			return nil, j, syntaxErr("bad number")
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		k := j
		j = skipDigits(src, j)
		if j == k {
			return nil, j, syntaxErr("bad number")
		}
	}
	lit := src[i:j]
	if intEnd == j && intEnd-digits <= 15 && string(lit) != "-0" {
		return append(dst, lit...), j, nil // an exact double, written as is
	}
	if c.exact || c.keepNumbers {
		if err := checkNumber(string(lit)); err != nil {
			if d, ok := decimalOf(string(lit)); ok && c.keepNumbers {
				return append(dst, d...), j, nil
			}
			return nil, j, &pathError{msg: err.Error()}
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, j, &pathError{msg: "number " + termtext.Quoted(string(lit), 80) + " is out of range for an IEEE double, which RFC 8785 requires"}
	}
	return appendES6Number(dst, f), j, nil
}

// appendES6Number appends the ECMAScript 6 Number.prototype.toString form
// of a finite f, which RFC 8785 uses for numbers.
func appendES6Number(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0') // also -0
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f < 1e21 && f >= 1e-6 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// Go writes e+09 / e-07; ES6 writes e+9 / e-7.
	for k := start; k < len(dst); k++ {
		if dst[k] == 'e' && k+2 < len(dst) && dst[k+2] == '0' {
			return append(dst[:k+2], dst[k+3:]...)
		}
	}
	return dst
}

// es6Number is appendES6Number as a string ("null" for NaN and infinities).
func es6Number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	return string(appendES6Number(nil, f))
}

// skipDigits returns the index after the run of ASCII digits at j.
func skipDigits(src []byte, j int) int {
	for j < len(src) && '0' <= src[j] && src[j] <= '9' {
		j++
	}
	return j
}
