package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Unquote decodes a JSON string token (quotes included) exactly as
// encoding/json does: escapes are decoded and invalid UTF-8 becomes U+FFFD,
// so a caller matching keys reads what its peers read. The common case, a
// plain ASCII or valid UTF-8 body without escapes, costs one copy.
func Unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", ErrSyntax
	}
	if in := tok[1 : len(tok)-1]; plain(in) {
		return string(in), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", ErrSyntax
	}
	return s, nil
}

// plain reports a string body that decodes to itself: no escapes, no
// control characters, valid UTF-8.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return utf8.Valid(b) && bytes.IndexByte(b, '\\') < 0 && !hasControl(b)
		}
	}
	return true
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}
