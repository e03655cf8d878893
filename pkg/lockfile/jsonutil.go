package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Canonical returns the RFC 8785 (JCS) form of raw, after checking that raw is
// valid UTF-8 and valid JSON. It does not check numbers; see NewServer.
func Canonical(raw []byte) ([]byte, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("not valid UTF-8")
	}
	return appendCanonical(make([]byte, 0, len(raw)), raw, false)
}

// Digest returns "sha256:" + hex(sha256(Canonical(raw))).
func Digest(raw []byte) (string, error) {
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	return digestOf(c), nil
}

func digestOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// validDigest reports whether d is "sha256:" followed by 64 lowercase hex digits.
func validDigest(d string) error {
	alg, hexpart, ok := strings.Cut(d, ":")
	if !ok {
		return errf("digest %s has no algorithm prefix (want sha256:<64 hex digits>)", termtext.Quoted(d, 80))
	}
	if alg != "sha256" {
		return errf("digest %s uses unknown algorithm %s (only sha256 is supported)", termtext.Quoted(d, 80), termtext.Quoted(alg, 80))
	}
	if len(hexpart) != 64 {
		return errf("digest %s: want 64 hex digits after sha256:, got %d characters", termtext.Quoted(d, 80), len(hexpart))
	}
	for i := 0; i < len(hexpart); i++ {
		c := hexpart[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return errf("digest %s: malformed hex (want lowercase 0-9a-f)", termtext.Quoted(d, 80))
		}
	}
	return nil
}

// kindOf returns the first significant byte of a JSON value: '{', '[', '"',
// 'n' (null), 't'/'f' (booleans) or a number's first character.
func kindOf(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func typeName(raw []byte) string {
	switch c := kindOf(raw); c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case 0:
		return "nothing"
	default:
		return "a number"
	}
}

func asString(raw json.RawMessage) (string, error) {
	if kindOf(raw) != '"' {
		return "", errf("want a string, got %s", typeName(raw))
	}
	if t := bytes.TrimSpace(raw); len(t) >= 2 && t[len(t)-1] == '"' && bytes.IndexByte(t[1:len(t)-1], '\\') < 0 && bytes.IndexByte(t[1:len(t)-1], '"') < 0 && utf8.Valid(t) && !hasControl(t) {
		return string(t[1 : len(t)-1]), nil // no escapes: the bytes are the value
	}
	if err := checkSurrogates(raw); err != nil {
		return "", err
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// checkSurrogates refuses \u escapes of UTF-16 surrogates that do not form a
// pair: encoding/json would silently turn them into U+FFFD, and RFC 8785
// refuses them.
func checkSurrogates(tok []byte) error {
	for i := 0; i+5 < len(tok); i++ {
		if tok[i] != '\\' {
			continue
		}
		if tok[i+1] != 'u' {
			i++ // skip the escaped character
			continue
		}
		u, err := strconv.ParseUint(string(tok[i+2:i+6]), 16, 16)
		if err != nil {
			return errf("bad \\u escape")
		}
		switch {
		case 0xDC00 <= u && u <= 0xDFFF:
			return errf("lone UTF-16 surrogate \\u%04x", u)
		case 0xD800 <= u && u <= 0xDBFF:
			if i+11 < len(tok) && tok[i+6] == '\\' && tok[i+7] == 'u' {
				if l, err := strconv.ParseUint(string(tok[i+8:i+12]), 16, 16); err == nil && 0xDC00 <= l && l <= 0xDFFF {
					i += 11
					continue
				}
			}
			return errf("lone UTF-16 surrogate \\u%04x", u)
		}
		i += 5
	}
	return nil
}

// asStrings decodes an array of strings; the result is never nil.
func asStrings(raw json.RawMessage) ([]string, error) {
	if kindOf(raw) != '[' {
		return nil, errf("want an array of strings, got %s", typeName(raw))
	}
	elems, err := arrayElements(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		s, err := asString(e)
		if err != nil {
			return nil, errf("element %d: %v", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// compact removes insignificant whitespace; key order and escapes are kept.
// raw must be valid JSON. The result is always a fresh copy.
func compact(raw []byte) json.RawMessage {
	out := make([]byte, 0, len(raw))
	inStr := false
	start := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, raw[start:i]...)
			start = i + 1
		}
	}
	return append(out, raw[start:]...)
}

// checkNumber refuses a JSON number literal whose exact decimal value differs
// from the value RFC 8785 writes for it (the shortest form of the nearest
// IEEE double): 9007199254740993 becomes 9007199254740992, 1e400 cannot be
// represented, 1e-400 becomes 0. Differences of form only (1.0 and 1, 1e2
// and 100, -0 and 0) are fine.
func checkNumber(lit string) error {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return errf("number %s is out of range for an IEEE double, which RFC 8785 requires", termtext.Quoted(lit, 80))
	}
	es6 := es6Number(f)
	want, ok1 := decimalOf(lit)
	got, ok2 := decimalOf(strconv.FormatFloat(f, 'e', -1, 64))
	if !ok1 || !ok2 || want != got {
		return errf("number %s would change to %s when canonicalised (RFC 8785 keeps IEEE doubles); "+
			"two different values must not share a digest", termtext.Quoted(lit, 80), es6)
	}
	return nil
}

// decimalOf normalises a JSON number literal to "sign digits e exponent" with
// no leading or trailing zeros in digits, so that equal values compare equal.
func decimalOf(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(lit), "e")
	var exp int64
	if hasExp {
		e, err := strconv.ParseInt(expPart, 10, 64)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return "", false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp -= int64(len(frac))
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	sign := ""
	if neg {
		sign = "-"
	}
	return fmt.Sprintf("%s%se%d", sign, trimmed, exp), true
}

// encodeString writes s as a JSON string without HTML escaping.
func encodeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // cannot fail for a string
	b.Truncate(b.Len() - 1)
}
