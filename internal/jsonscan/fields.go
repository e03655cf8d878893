package jsonscan

import (
	"errors"
	"fmt"
)

// ErrNotObject is Fields' error for a value that is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// DuplicateError reports a key that appears twice in one object: which of
// the two counts depends on the parser, so mcpsum refuses the object.
type DuplicateError struct{ Key string }

func (e *DuplicateError) Error() string { return fmt.Sprintf("duplicate member %+q", e.Key) }

// Fields returns the values of the named members of the object b (b holds
// exactly one object, white space around it allowed), nil for an absent
// member. Keys match exactly, escapes decoded, and the exact-key rule holds
// (ExactMembers): any key that appears twice is a *DuplicateError, and a case
// variant of a named member ("Result" beside or instead of "result") is a
// *TwinError: callers read what every peer reads, or nothing.
func Fields(b []byte, names ...string) ([][]byte, error) {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, ErrNotObject
	}
	out := make([][]byte, len(names))
	end, err := ExactMembers(b, i, names, func(key string, _, vs, ve int) error {
		for k, n := range names {
			if n == key {
				out[k] = b[vs:ve:ve]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if SkipWS(b, end) != len(b) {
		return nil, ErrSyntax
	}
	return out, nil
}

// String decodes v as a JSON string; ok is false for anything else.
func String(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	s, err := Unquote(v)
	return s, err == nil
}

// Strings decodes v as an array of strings; ok is false for anything else.
func Strings(v []byte) ([]string, bool) {
	i := SkipWS(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil, false
	}
	out := []string{}
	end, err := Elements(v, i, func(s, e int) error {
		str, ok := String(v[s:e])
		if !ok {
			return ErrSyntax
		}
		out = append(out, str)
		return nil
	})
	if err != nil || SkipWS(v, end) != len(v) {
		return nil, false
	}
	return out, true
}
