package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The proxy never decodes a message it only forwards. It walks the envelope
// (the top-level members, and where it must decide something the members of
// params or result) with the cheap scanner below, which records byte ranges
// and skips every other value by matching quotes and brackets. Strings are
// skipped with bytes.IndexByte, so a multi-megabyte text result costs about a
// memory scan. Keys are decoded exactly (escapes included) and a duplicate of
// any member the proxy acts on is an error, so the proxy and the peer behind
// it cannot read different values from one message.

// span is the byte range [s, e) of a JSON value inside a line; e == 0 means
// absent.
type span struct{ s, e int }

func (sp span) ok() bool { return sp.e > 0 }

func (sp span) of(b []byte) []byte {
	if !sp.ok() {
		return nil
	}
	return b[sp.s:sp.e]
}

// envelope holds where the JSON-RPC members of one message are.
type envelope struct {
	id, method, params, result, errv span
	open, close                      int  // the top-level '{' and '}'
	nullID                           bool // "id":null
}

// A request has a method and a non-null id; a notification a method and no
// id; a response no method and a result or an error.
func (e *envelope) isResponse() bool     { return !e.method.ok() && (e.result.ok() || e.errv.ok()) }
func (e *envelope) isRequest() bool      { return e.method.ok() && e.id.ok() && !e.nullID }
func (e *envelope) isNotification() bool { return e.method.ok() && !e.id.ok() }

var errScan = errors.New("malformed JSON")

// scanEnvelope finds the JSON-RPC members of a message line.
func scanEnvelope(b []byte) (envelope, []byte, error) {
	var env envelope
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		if i < len(b) && b[i] == '[' {
			return env, nil, errors.New("JSON-RPC batches are not supported")
		}
		return env, nil, errors.New("not a JSON object")
	}
	env.open = i
	end, err := members(b, i, func(key string, _ int, v span) error {
		var dst *span
		switch key {
		case "id":
			dst = &env.id
		case "method":
			dst = &env.method
		case "params":
			dst = &env.params
		case "result":
			dst = &env.result
		case "error":
			dst = &env.errv
		default:
			return nil
		}
		if dst.ok() {
			return fmt.Errorf("duplicate %q member", key)
		}
		*dst = v
		return nil
	})
	if err != nil {
		return env, nil, err
	}
	if j := skipWS(b, end); j != len(b) {
		return env, nil, errors.New("trailing data after the JSON object")
	}
	env.close = end - 1
	if env.method.ok() && (b[env.method.s] != '"') {
		return env, nil, errors.New("method is not a string")
	}
	env.nullID = string(env.id.of(b)) == "null"
	return env, env.id.of(b), nil
}

// members walks the object starting at b[i] == '{', calling fn with each
// decoded key, the index of the key's opening quote and the span of its
// value. It returns the index after '}'.
func members(b []byte, i int, fn func(key string, ks int, v span) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errScan
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errScan
		}
		ke, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key, err := decodeString(b[i:ke])
		if err != nil {
			return 0, err
		}
		ks := i
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, errScan
		}
		vs := skipWS(b, i+1)
		ve, err := skipValue(b, vs)
		if err != nil {
			return 0, err
		}
		if err := fn(key, ks, span{vs, ve}); err != nil {
			return 0, err
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return 0, errScan
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errScan
		}
	}
}

// fields returns the spans of the named members of the object v in b; a
// duplicate of a named member is an error. An absent or non-object v gives
// empty spans (and ok false for a non-object that is present).
func fields(b []byte, v span, names ...string) ([]span, bool, error) {
	out := make([]span, len(names))
	if !v.ok() {
		return out, true, nil
	}
	if b[v.s] != '{' {
		return out, false, nil
	}
	_, err := members(b[:v.e], v.s, func(key string, _ int, sp span) error {
		for k, n := range names {
			if n == key {
				if out[k].ok() {
					return fmt.Errorf("duplicate %q member", key)
				}
				out[k] = sp
			}
		}
		return nil
	})
	return out, err == nil, err
}

func skipWS(b []byte, i int) int {
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

// skipValue returns the index just after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errScan
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		return skipNested(b, i)
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n':
		j := i + 1
		for j < len(b) && literalByte[b[j]] {
			j++
		}
		return j, nil
	}
	return 0, errScan
}

var literalByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+-.eEabcdefghijklmnopqrstuvwxyz") {
		t[c] = true
	}
	return
}()

// skipString returns the index after the string whose opening quote is b[i].
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errScan
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		j = q + 1
	}
}

// skipNested skips an object or array by matching brackets, skipping strings.
func skipNested(b []byte, i int) (int, error) {
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
	return 0, errScan
}

// decodeString decodes a JSON string literal (quotes included).
func decodeString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", errScan
	}
	if in := raw[1 : len(raw)-1]; plainString(in) {
		return string(in), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errScan
	}
	return s, nil
}

// plainString reports a string body that decodes to itself: no escapes, no
// control characters, valid UTF-8 (encoding/json turns invalid bytes into
// U+FFFD, and the proxy must read what its peers read).
func plainString(b []byte) bool {
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

// stringAt decodes the string value at sp; ok is false when absent or not a string.
func stringAt(b []byte, sp span) (string, bool) {
	if !sp.ok() || b[sp.s] != '"' {
		return "", false
	}
	s, err := decodeString(b[sp.s:sp.e])
	return s, err == nil
}

// splice returns b with the range sp replaced by repl, as three pieces that
// share b's memory: prefix, repl, suffix.
func splice(b []byte, sp span, repl []byte) [3][]byte {
	return [3][]byte{b[:sp.s], repl, b[sp.e:]}
}

// concat joins pieces into one new slice.
func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
