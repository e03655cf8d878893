package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The fleet's JSON is read with the exact-key rule (internal/jsonscan): a
// member twice, or a case variant of one mcpsum reads, is an error, so
// mcpsum never acts on another document than a client or a person reads.

// object reads the JSON object b (white space around it allowed) and
// returns its members by name. With strict, a member not in known is an
// error naming it; without, other members are returned too (a client's
// policy file holds settings mcpsum does not manage).
func object(b []byte, known []string, strict bool) (map[string][]byte, error) {
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	out := map[string][]byte{}
	end, err := jsonscan.ExactMembers(b, i, known, func(key string, _, vs, ve int) error {
		if strict && !slices.Contains(known, key) {
			return fmt.Errorf("unknown member %s (known: %v)", termtext.Quoted(key, 60), known)
		}
		out[key] = b[vs:ve:ve]
		return nil
	})
	if err != nil {
		return nil, err
	}
	if jsonscan.SkipWS(b, end) != len(b) {
		return nil, jsonscan.ErrSyntax
	}
	return out, nil
}

// elements returns the elements of the JSON array v.
func elements(v []byte) ([][]byte, bool) {
	i := jsonscan.SkipWS(v, 0)
	if i >= len(v) || v[i] != '[' {
		return nil, false
	}
	var out [][]byte
	end, err := jsonscan.Elements(v, i, func(s, e int) error {
		out = append(out, v[s:e:e])
		return nil
	})
	return out, err == nil && jsonscan.SkipWS(v, end) == len(v)
}

// str decodes v as a JSON string.
func str(v []byte) (string, bool) { return jsonscan.String(v) }

// maxSerial is the largest serial: every JSON reader holds it exactly.
const maxSerial = 1<<53 - 1

// serial decodes v as a positive JSON integer in decimal digits only (no
// sign, fraction, exponent or leading zero).
func serial(v []byte) (int64, bool) {
	s := string(v)
	if s == "" || s[0] == '0' || len(s) > 16 {
		return 0, false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 1 && n <= maxSerial
}

// indentJSON is v as JSON with two-space indentation, HTML characters
// unescaped, and a final newline: what mcpsum writes for people to read.
func indentJSON(v any) []byte {
	b, err := marshalNoEscape(v)
	if err != nil {
		panic(err) // only values mcpsum built are marshalled
	}
	return b
}

// compactJSON is v as one line of JSON, HTML characters unescaped (a value
// a policy carries inside a string).
func compactJSON(v any) string {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(string(buf.b), "\n")
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.b, nil
}

type jsonBuffer struct{ b []byte }

func (j *jsonBuffer) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }
