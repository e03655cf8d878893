package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A minimal scanner over JSON already known to be valid (every line a Client
// reads passed Decode, which parses it with encoding/json). It finds the
// members of an object and the elements of an array without decoding them, so
// the inventory reads a 1000-tool reply in one pass instead of several. On
// malformed input it returns errMalformed; it never panics.

var errMalformed = errors.New("malformed JSON")

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errMalformed
		}
		j += k
		n := 0 // backslashes right before the quote
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipValue returns the index after the value starting at b[i] (no leading space).
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := skipString(b, j)
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
		return 0, errMalformed
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return 0, errMalformed
	}
	return j, nil
}

// eachMember calls fn with the decoded name and the raw value of every member
// of the object b, in order.
func eachMember(b []byte, fn func(name string, val []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errMalformed
		}
		e, err := skipString(b, i)
		if err != nil {
			return err
		}
		name, err := unquote(b[i:e])
		if err != nil {
			return err
		}
		i = skipWS(b, e)
		if i >= len(b) || b[i] != ':' {
			return errMalformed
		}
		i = skipWS(b, i+1)
		e, err = skipValue(b, i)
		if err != nil {
			return err
		}
		if err := fn(name, b[i:e]); err != nil {
			return err
		}
		i = skipWS(b, e)
		if i >= len(b) {
			return errMalformed
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return trailing(b, i+1)
		default:
			return errMalformed
		}
	}
}

var errNotObject = errors.New("not a JSON object")

func trailing(b []byte, i int) error {
	if skipWS(b, i) != len(b) {
		return errMalformed
	}
	return nil
}

// unquote decodes a JSON string token; the common case has no escapes.
func unquote(tok []byte) (string, error) {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", errMalformed
	}
	return s, nil
}

// splitArray returns the elements of the array b as subslices of one copy of
// b (each capped at its own end, so appending to one cannot touch another).
// null gives an empty list.
func splitArray(b []byte) ([]json.RawMessage, error) {
	i := skipWS(b, 0)
	if i < len(b) && bytes.HasPrefix(b[i:], []byte("null")) {
		return []json.RawMessage{}, trailing(b, i+4)
	}
	if i >= len(b) || b[i] != '[' {
		return nil, errors.New("not an array")
	}
	b = bytes.Clone(b)
	out := []json.RawMessage{}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return out, trailing(b, i+1)
	}
	for {
		e, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, json.RawMessage(b[i:e:e]))
		i = skipWS(b, e)
		if i >= len(b) {
			return nil, errMalformed
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case ']':
			return out, trailing(b, i+1)
		default:
			return nil, errMalformed
		}
	}
}
