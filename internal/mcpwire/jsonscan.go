package mcpwire

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// The inventory walks list results with internal/jsonscan over JSON already
// known to be valid (every line a Client reads passed Decode, which parses
// it with encoding/json). It finds the members of an object and the elements
// of an array without decoding them, so the inventory reads a 1000-tool reply
// in one pass instead of several. On malformed input it returns
// errMalformed; it never panics.

var (
	errMalformed = jsonscan.ErrSyntax
	errNotObject = errors.New("not a JSON object")
)

// eachExact calls fn with the decoded name and the raw value of every
// member of the object b, in order, under the exact-key rule shared with the
// proxy (jsonscan.ExactMembers): a member twice, or a case variant of one of
// names (the members mcpsum reads), is an error, since a client that
// ignores case would read the variant.
func eachExact(b []byte, names []string, fn func(name string, val []byte) error) error {
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	end, err := jsonscan.ExactMembers(b, i, names, func(name string, _, vs, ve int) error {
		return fn(name, b[vs:ve])
	})
	if err != nil {
		return err
	}
	return trailing(b, end)
}

func trailing(b []byte, i int) error {
	if jsonscan.SkipWS(b, i) != len(b) {
		return errMalformed
	}
	return nil
}

// splitArray returns the elements of the array b as subslices of one copy of
// b (each capped at its own end, so appending to one cannot touch another).
// null gives an empty list.
func splitArray(b []byte) ([]json.RawMessage, error) {
	i := jsonscan.SkipWS(b, 0)
	if i < len(b) && bytes.HasPrefix(b[i:], []byte("null")) {
		return []json.RawMessage{}, trailing(b, i+4)
	}
	if i >= len(b) || b[i] != '[' {
		return nil, errors.New("not an array")
	}
	b = bytes.Clone(b)
	out := []json.RawMessage{}
	end, err := jsonscan.Elements(b, i, func(vs, ve int) error {
		out = append(out, json.RawMessage(b[vs:ve:ve]))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, trailing(b, end)
}
