package jsonscan

import (
	"bytes"
	"errors"
)

// ErrSyntax is returned for input the scanner cannot walk.
var ErrSyntax = errors.New("malformed JSON")

// SkipWS returns the index of the first byte at or after i that is not JSON
// white space (len(b) if none).
func SkipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index just after the string whose opening quote is
// b[i]. A quote ends the string when an even number of backslashes precede
// it.
func SkipString(b []byte, i int) (int, error) {
	if i < 0 || i >= len(b) || b[i] != '"' {
		return 0, ErrSyntax
	}
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, ErrSyntax
		}
		q := j + k
		n := 0 // backslashes right before the quote
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// SkipValue returns the index just after the value starting at b[i] (no
// leading white space). Numbers and the literals true, false and null are
// skipped as a run of the bytes they may contain.
func SkipValue(b []byte, i int) (int, error) {
	if i < 0 || i >= len(b) {
		return 0, ErrSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return SkipString(b, i)
	case c == '{' || c == '[':
		return skipNested(b, i)
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		j := i + 1
		for j < len(b) && literalByte[b[j]] {
			j++
		}
		return j, nil
	}
	return 0, ErrSyntax
}

var literalByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eEabcdefghijklmnopqrstuvwxyz") {
		t[c] = true
	}
	return
}()

// skipNested skips an object or array by matching brackets, skipping strings.
func skipNested(b []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			e, err := SkipString(b, j)
			if err != nil {
				return 0, err
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, ErrSyntax
}
