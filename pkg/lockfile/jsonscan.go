package lockfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A small scanner over JSON text that finds value boundaries without
// decoding, much faster than encoding/json's Decoder.Token for walking a
// whole lockfile. Callers validate with json.Valid first; the scanner still
// checks bounds and returns errSyntax rather than panicking on bad input.

var errSyntax = errors.New("malformed JSON")

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index just past the string starting at b[i] == '"'.
func scanString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errSyntax
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errSyntax
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := scanString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(b) && !strings.ContainsRune(",]} \t\r\n", rune(b[j])) {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

// unquote decodes a JSON string token.
func unquote(tok []byte) (string, error) {
	if len(tok) >= 2 && !strings.ContainsRune(string(tok), '\\') {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

// member is one key/value pair of a JSON object, in document order.
type member struct {
	key string
	val json.RawMessage
}

// eachMember calls fn for each member of the object at raw.
func eachMember(raw []byte, fn func(key string, val []byte) error) error {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return errf("want an object, got %s", typeName(raw))
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil
	}
	for {
		end, err := scanString(raw, i)
		if err != nil {
			return err
		}
		key, err := unquote(raw[i:end])
		if err != nil {
			return err
		}
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return errSyntax
		}
		i = skipWS(raw, i+1)
		vend, err := skipValue(raw, i)
		if err != nil {
			return err
		}
		if err := fn(key, raw[i:vend]); err != nil {
			return err
		}
		i = skipWS(raw, vend)
		if i >= len(raw) {
			return errSyntax
		}
		if raw[i] == '}' {
			return nil
		}
		if raw[i] != ',' {
			return errSyntax
		}
		i = skipWS(raw, i+1)
	}
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
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, errf("want an array, got %s", typeName(raw))
	}
	out := []json.RawMessage{}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, nil
	}
	for {
		end, err := skipValue(raw, i)
		if err != nil {
			return nil, err
		}
		out = append(out, json.RawMessage(raw[i:end]))
		i = skipWS(raw, end)
		if i >= len(raw) {
			return nil, errSyntax
		}
		if raw[i] == ']' {
			return out, nil
		}
		if raw[i] != ',' {
			return nil, errSyntax
		}
		i = skipWS(raw, i+1)
	}
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
		i := skipWS(v, 0)
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
			end, err := skipValue(v, i)
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
