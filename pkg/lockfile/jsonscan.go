package lockfile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// The lockfile is walked with internal/jsonscan, which finds value
// boundaries without decoding, much faster than encoding/json's
// Decoder.Token for a whole lockfile. Callers validate with json.Valid
// first; the scanner still checks bounds and returns errSyntax rather than
// panicking on bad input.

var errSyntax = jsonscan.ErrSyntax

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
			return errf("duplicate key %s", quote(key))
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
// not refuse duplicate keys (scanValue does, naming the item); with a
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

// scanValue walks a whole JSON value (raw must be valid JSON) and refuses
// duplicate object keys at any depth and numbers whose value RFC 8785 would
// change, so that two different surfaces never share a digest. Errors name
// the path inside the value.
func scanValue(raw []byte) error {
	var path []string
	var walk func(v []byte) error
	walk = func(v []byte) error {
		i := jsonscan.SkipWS(v, 0)
		if i >= len(v) {
			return errSyntax
		}
		switch v[i] {
		case '{':
			seen := map[string]bool{}
			return eachMember(v, func(key string, val []byte) error {
				if seen[key] {
					return errf("duplicate key %s at %s", quote(key), where(path))
				}
				seen[key] = true
				if isIdent(key) {
					path = append(path, "."+key)
				} else {
					path = append(path, "["+quote(key)+"]")
				}
				err := walk(val)
				path = path[:len(path)-1]
				return err
			})
		case '[':
			elems, err := arrayElements(v)
			if err != nil {
				return err
			}
			for n, e := range elems {
				path = append(path, "["+strconv.Itoa(n)+"]")
				err := walk(e)
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
			}
			return nil
		case '"', 't', 'f', 'n':
			return nil
		default:
			end, err := jsonscan.SkipValue(v, i)
			if err != nil {
				return err
			}
			if err := checkNumber(string(v[i:end])); err != nil {
				return fmt.Errorf("%v at %s", err, where(path))
			}
			return nil
		}
	}
	return walk(raw)
}

func where(path []string) string {
	if len(path) == 0 {
		return "top level"
	}
	return strings.TrimPrefix(strings.Join(path, ""), ".")
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
