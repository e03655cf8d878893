package proxy

import (
	"errors"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
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
	jsonrpc                          span
	open, close                      int    // the top-level '{' and '}'
	nullID                           bool   // "id":null
	extra                            string // the first other top-level member
	hasExtra                         bool
}

// A request has a method and a non-null id; a notification a method and no
// id; a response no method and a result or an error.
func (e *envelope) isResponse() bool     { return !e.method.ok() && (e.result.ok() || e.errv.ok()) }
func (e *envelope) isRequest() bool      { return e.method.ok() && e.id.ok() && !e.nullID }
func (e *envelope) isNotification() bool { return e.method.ok() && !e.id.ok() }

// slot returns where the member key of the envelope goes, nil for a member
// the proxy does not act on.
func (e *envelope) slot(key string) *span {
	switch key {
	case "id":
		return &e.id
	case "method":
		return &e.method
	case "params":
		return &e.params
	case "result":
		return &e.result
	case "error":
		return &e.errv
	case "jsonrpc":
		return &e.jsonrpc
	}
	return nil
}

// envelopeKeys are the JSON-RPC members: a case variant of one is refused.
var envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// responseRule checks the top level of a message with a result or an
// error: jsonrpc, id and exactly one of result and error, nothing else. A
// client reading a second member its own way (a method makes go-sdk read
// the message as a request under the client's own id) would see a message
// the proxy did not check. The streamed path applies the same rule as it
// reads (tracker.checkKey).
func (e *envelope) responseRule() error {
	switch {
	case !e.result.ok() && !e.errv.ok():
		return nil
	case e.result.ok() && e.errv.ok():
		return errors.New("a response holds both result and error")
	case e.method.ok():
		return responseMemberError("method")
	case e.params.ok():
		return responseMemberError("params")
	case e.hasExtra:
		return responseMemberError(e.extra)
	}
	return nil
}

func responseMemberError(k string) error {
	return fmt.Errorf("a response holds only jsonrpc, id and one of result or error at its top level, not %s", termtext.TruncateQuote(k, 40))
}

// scanEnvelope finds the JSON-RPC members of a message line.
func scanEnvelope(b []byte) (envelope, []byte, error) {
	var env envelope
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		if i < len(b) && b[i] == '[' {
			return env, nil, errors.New("JSON-RPC batches are not supported")
		}
		return env, nil, errors.New("not a JSON object")
	}
	env.open = i
	end, err := jsonscan.Members(b, i, func(key string, _, vs, ve int) error {
		dst := env.slot(key)
		if dst == nil {
			if of := jsonscan.TwinOf(key, envelopeKeys); of != "" {
				return &jsonscan.TwinError{Key: key, Of: of}
			}
			if !env.hasExtra {
				env.extra, env.hasExtra = key, true
			}
			return nil
		}
		if dst.ok() {
			return fmt.Errorf("duplicate %q member", key)
		}
		*dst = span{vs, ve}
		return nil
	})
	if err != nil {
		return env, nil, err
	}
	if j := jsonscan.SkipWS(b, end); j != len(b) {
		return env, nil, errors.New("trailing data after the JSON object")
	}
	env.close = end - 1
	if env.method.ok() && (b[env.method.s] != '"') {
		return env, nil, errors.New("method is not a string")
	}
	env.nullID = string(env.id.of(b)) == "null"
	return env, env.id.of(b), nil
}

// fields returns the spans of the named members of the object v in b, under
// the exact-key rule verify applies to servers (jsonscan.ExactMembers): any
// duplicate member, or a case variant of a named one, is an error. An absent or non-object v gives
// empty spans (and ok false for a non-object that is present).
func fields(b []byte, v span, names ...string) ([]span, bool, error) {
	out := make([]span, len(names))
	if !v.ok() {
		return out, true, nil
	}
	if b[v.s] != '{' {
		return out, false, nil
	}
	_, err := jsonscan.ExactMembers(b[:v.e], v.s, names, func(key string, _, vs, ve int) error {
		for k, n := range names {
			if n == key {
				out[k] = span{vs, ve}
			}
		}
		return nil
	})
	return out, err == nil, err
}

// stringAt decodes the string value at sp; ok is false when absent or not a string.
func stringAt(b []byte, sp span) (string, bool) {
	if !sp.ok() || b[sp.s] != '"' {
		return "", false
	}
	s, err := jsonscan.Unquote(b[sp.s:sp.e])
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

// prefix is what scanPrefix found in the head of a long line.
type prefix struct {
	env     envelope
	open    string   // the member whose value runs past the head
	keys    []string // every member name in the head
	idKey   int      // where the id member starts (its name's quote)
	afterID int      // just after the ',' that follows the id's value
}

// scanPrefix scans the members of a message whose line is longer than b:
// the spans of the members that end inside b, and the key of the member
// whose value runs past it (ok false when b does not look like the start
// of a JSON-RPC object, or when the id does not come before that member).
func scanPrefix(b []byte) (pre prefix, ok bool) {
	env := &pre.env
	i := jsonscan.SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return pre, false
	}
	i = jsonscan.SkipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ks := i
		ke, err := jsonscan.SkipString(b, i)
		if err != nil {
			return pre, false
		}
		key, err := jsonscan.Unquote(b[i:ke])
		if err != nil {
			return pre, false
		}
		for _, k := range pre.keys {
			if k == key {
				return pre, false // a duplicate: let the full scan refuse it
			}
		}
		i = jsonscan.SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return pre, false
		}
		vs := jsonscan.SkipWS(b, i+1)
		ve, err := jsonscan.SkipValue(b, vs)
		if err != nil || ve >= len(b) {
			if vs >= len(b) {
				return pre, false
			}
			if key == "result" {
				env.result = span{vs, len(b)}
			}
			pre.open = key
			return pre, true
		}
		pre.keys = append(pre.keys, key)
		if dst := env.slot(key); dst != nil {
			*dst = span{vs, ve}
		}
		i = jsonscan.SkipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			if key == "id" {
				pre.idKey, pre.afterID = ks, i+1
			}
			i = jsonscan.SkipWS(b, i+1)
			continue
		}
		return pre, false
	}
	return pre, false
}

// onlyEnvelope reports whether the head holds only jsonrpc and id before
// the result (the response rule; any other head is collected and refused
// on the short path).
func (pre *prefix) onlyEnvelope() bool {
	for _, k := range pre.keys {
		if k != "jsonrpc" && k != "id" {
			return false
		}
	}
	return true
}

// checkServerLine reads a line of the server the one way both paths do:
// valid JSON and UTF-8 as the tracker checks a streamed line, exactly one
// JSON-RPC object, and a response only with the members of the response
// rule.
func checkServerLine(line []byte) (envelope, []byte, error) {
	env, id, err := scanEnvelope(line)
	if err != nil {
		return env, id, err
	}
	if err := validate(line[env.open:]); err != nil {
		return env, id, err
	}
	return env, id, env.responseRule()
}

// validate checks that b is one JSON object (white space after it allowed)
// with the tracker's grammar, as a streamed line is checked.
func validate(b []byte) error {
	t := &tracker{grammar: grammar{plain: true, st: tValue}}
	if err := t.feed(b, func([]byte) {}); err != nil {
		return err
	}
	if !t.done {
		return errors.New("the line ended inside the message")
	}
	return nil
}
