package lockfile

import (
	"encoding/json"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The lockfile is walked with internal/jsonscan, which finds value
// boundaries without decoding, much faster than encoding/json's
// Decoder.Token for a whole lockfile. Callers validate with json.Valid
// first; the scanner still checks bounds and returns jsonscan.ErrSyntax
// rather than panicking on bad input.

// member is one key/value pair of a JSON object, in document order.
type member struct {
	key string
	val json.RawMessage
}

// eachMember calls fn for each member of the object at raw.
func eachMember(raw []byte, fn func(key string, val []byte) error) error {
	i := jsonscan.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errf("want an object, got %s", typeName(raw))
	}
	_, err := jsonscan.Members(raw, i, func(key string, _, vs, ve int) error {
		return fn(key, raw[vs:ve])
	})
	return err
}

// objectMembers splits a JSON object into its members, refusing duplicate keys.
func objectMembers(raw json.RawMessage) ([]member, error) {
	var out []member
	seen := map[string]bool{}
	err := eachMember(raw, func(key string, val []byte) error {
		if seen[key] {
			return errf("duplicate key %s", termtext.Quoted(key, 80))
		}
		seen[key] = true
		out = append(out, member{key, val})
		return nil
	})
	return out, err
}

// arrayElements splits a JSON array into its elements.
func arrayElements(raw []byte) ([]json.RawMessage, error) {
	i := jsonscan.SkipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, errf("want an array, got %s", typeName(raw))
	}
	out := []json.RawMessage{}
	if _, err := jsonscan.Elements(raw, i, func(vs, ve int) error {
		out = append(out, json.RawMessage(raw[vs:ve]))
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// itemKey returns the string value of field in a raw item object. It does
// not refuse duplicate keys (the canonicaliser does, naming the item); with a
// duplicated key field the first one is used.
func itemKey(item json.RawMessage, field string) (string, error) {
	var key string
	found := false
	err := eachMember(item, func(k string, val []byte) error {
		if k != field || found {
			return nil
		}
		found = true
		s, err := asString(val)
		if err != nil {
			return errf("item field %q: %v", field, err)
		}
		key = s
		return nil
	})
	if err != nil {
		if kindOf(item) != '{' {
			return "", errf("item is not a JSON object (got %s)", typeName(item))
		}
		return "", err
	}
	if !found {
		return "", errf("item has no %q field", field)
	}
	return key, nil
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
