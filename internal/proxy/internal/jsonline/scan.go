package jsonline

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

// Span is the byte range [Start, End) of a JSON value inside a line; End == 0 means
// absent.
type Span struct{ Start, End int }

// OK reports whether the value is present.
func (sp Span) OK() bool { return sp.End > 0 }

// Of returns the bytes of the value in b (nil when absent).
func (sp Span) Of(b []byte) []byte {
	if !sp.OK() {
		return nil
	}
	return b[sp.Start:sp.End]
}

// Envelope holds where the JSON-RPC members of one message are.
type Envelope struct {
	ID, Method, Params, Result, Err Span
	jsonrpc                         Span
	open, Close                     int    // the top-level '{' and '}'
	NullID                          bool   // "id":null
	extra                           string // the first other top-level member
	hasExtra                        bool
}

// A request has a method and a non-null id; a notification a method and no
// id; a response no method and a result or an error.
func (e *Envelope) IsResponse() bool     { return !e.Method.OK() && (e.Result.OK() || e.Err.OK()) }
func (e *Envelope) IsRequest() bool      { return e.Method.OK() && e.ID.OK() && !e.NullID }
func (e *Envelope) IsNotification() bool { return e.Method.OK() && !e.ID.OK() }

// slot returns where the member key of the envelope goes, nil for a member
// the proxy does not act on.
func (e *Envelope) slot(key string) *Span {
	switch key {
	case "id":
		return &e.ID
	case "method":
		return &e.Method
	case "params":
		return &e.Params
	case "result":
		return &e.Result
	case "error":
		return &e.Err
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
func (e *Envelope) responseRule() error {
	switch {
	case !e.Result.OK() && !e.Err.OK():
		return nil
	case e.Result.OK() && e.Err.OK():
		return errors.New("a response holds both result and error")
	case e.Method.OK():
		return responseMemberError("method")
	case e.Params.OK():
		return responseMemberError("params")
	case e.hasExtra:
		return responseMemberError(e.extra)
	}
	return nil
}

func responseMemberError(k string) error {
	return fmt.Errorf("a response holds only jsonrpc, id and one of result or error at its top level, not %s", termtext.TruncateQuote(k, 40))
}

// ScanEnvelope finds the JSON-RPC members of a message line.
func ScanEnvelope(b []byte) (Envelope, []byte, error) {
	var env Envelope
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
		if dst.OK() {
			return fmt.Errorf("duplicate %q member", key)
		}
		*dst = Span{vs, ve}
		return nil
	})
	if err != nil {
		return env, nil, err
	}
	if j := jsonscan.SkipWS(b, end); j != len(b) {
		return env, nil, errors.New("trailing data after the JSON object")
	}
	env.Close = end - 1
	if env.Method.OK() && (b[env.Method.Start] != '"') {
		return env, nil, errors.New("method is not a string")
	}
	env.NullID = string(env.ID.Of(b)) == "null"
	return env, env.ID.Of(b), nil
}

// Fields returns the spans of the named members of the object v in b, under
// the exact-key rule verify applies to servers (jsonscan.ExactMembers): any
// duplicate member, or a case variant of a named one, is an error. An absent or non-object v gives
// empty spans (and ok false for a non-object that is present).
func Fields(b []byte, v Span, names ...string) ([]Span, bool, error) {
	out := make([]Span, len(names))
	if !v.OK() {
		return out, true, nil
	}
	if b[v.Start] != '{' {
		return out, false, nil
	}
	_, err := jsonscan.ExactMembers(b[:v.End], v.Start, names, func(key string, _, vs, ve int) error {
		for k, n := range names {
			if n == key {
				out[k] = Span{vs, ve}
			}
		}
		return nil
	})
	return out, err == nil, err
}

// StringAt decodes the string value at sp; ok is false when absent or not a string.
func StringAt(b []byte, sp Span) (string, bool) {
	if !sp.OK() || b[sp.Start] != '"' {
		return "", false
	}
	s, err := jsonscan.Unquote(b[sp.Start:sp.End])
	return s, err == nil
}

// Splice returns b with the range sp replaced by repl, as three pieces that
// share b's memory: prefix, repl, suffix.
func Splice(b []byte, sp Span, repl []byte) [3][]byte {
	return [3][]byte{b[:sp.Start], repl, b[sp.End:]}
}

// Concat joins pieces into one new slice.
func Concat(parts ...[]byte) []byte {
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

// Prefix is what ScanPrefix found in the head of a long line.
type Prefix struct {
	Env     Envelope
	Open    string   // the member whose value runs past the head
	Keys    []string // every member name in the head
	IDKey   int      // where the id member starts (its name's quote)
	AfterID int      // just after the ',' that follows the id's value
}

// ScanPrefix scans the members of a message whose line is longer than b:
// the spans of the members that end inside b, and the key of the member
// whose value runs past it (ok false when b does not look like the start
// of a JSON-RPC object, or when the id does not come before that member).
func ScanPrefix(b []byte) (pre Prefix, ok bool) {
	env := &pre.Env
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
		for _, k := range pre.Keys {
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
				env.Result = Span{vs, len(b)}
			}
			pre.Open = key
			return pre, true
		}
		pre.Keys = append(pre.Keys, key)
		if dst := env.slot(key); dst != nil {
			*dst = Span{vs, ve}
		}
		i = jsonscan.SkipWS(b, ve)
		if i < len(b) && b[i] == ',' {
			if key == "id" {
				pre.IDKey, pre.AfterID = ks, i+1
			}
			i = jsonscan.SkipWS(b, i+1)
			continue
		}
		return pre, false
	}
	return pre, false
}

// OnlyEnvelope reports whether the head holds only jsonrpc and id before
// the result (the response rule; any other head is collected and refused
// on the short path).
func (pre *Prefix) OnlyEnvelope() bool {
	for _, k := range pre.Keys {
		if k != "jsonrpc" && k != "id" {
			return false
		}
	}
	return true
}

// CheckServerLine reads a line of the server the one way both paths do:
// valid JSON and UTF-8 as the tracker checks a streamed line, exactly one
// JSON-RPC object, and a response only with the members of the response
// rule.
func CheckServerLine(line []byte) (Envelope, []byte, error) {
	env, id, err := ScanEnvelope(line)
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
	t := &Tracker{grammar: grammar{plain: true, st: tValue}}
	if err := t.Feed(b, func([]byte) {}); err != nil {
		return err
	}
	if !t.done {
		return errors.New("the line ended inside the message")
	}
	return nil
}
