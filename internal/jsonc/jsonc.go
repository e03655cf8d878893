package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Kind is the type of a value.
type Kind int

const (
	Object Kind = iota + 1
	Array
	String
	Number
	Bool
	Null
)

func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Number:
		return "number"
	case Bool:
		return "boolean"
	case Null:
		return "null"
	}
	return "unknown"
}

// Value is one JSON value and where it is in the source.
type Value struct {
	Kind       Kind
	Start, End int      // src[Start:End] is the value's text (no surrounding comments)
	Str        string   // decoded, for String
	Bool       bool     // for Bool: true or false
	Members    []Member // for Object, in file order (duplicates kept)
	Elems      []*Value // for Array
}

// Member is one key of an object.
type Member struct {
	Key              string
	KeyStart, KeyEnd int // src[KeyStart:KeyEnd] is the quoted key
	Value            *Value
	// End is the offset just after the member's value (before any comma).
	End int
}

// Get returns the last member named key (JSON.parse keeps the last of
// duplicates) and how many members have that name.
func (v *Value) Get(key string) (*Value, int) {
	if v == nil || v.Kind != Object {
		return nil, 0
	}
	var last *Value
	n := 0
	for _, m := range v.Members {
		if m.Key == key {
			last, n = m.Value, n+1
		}
	}
	return last, n
}

// SyntaxError is malformed input, with its position.
type SyntaxError struct {
	Offset, Line, Col int
	Msg               string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

// Parse parses one JSONC document. An input of only white space and
// comments is an error (callers decide what an empty file means).
func Parse(src []byte) (*Value, error) {
	p := &parser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.i = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i == len(src) {
		return nil, p.errf("no JSON value (the file is empty or holds only comments)")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i != len(src) {
		return nil, p.errf("unexpected %s after the top-level value", p.show())
	}
	return v, nil
}

type parser struct {
	src []byte
	i   int
}

func (p *parser) errf(format string, args ...any) error {
	line, col := Position(p.src, p.i)
	return &SyntaxError{Offset: p.i, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) show() string {
	if p.i >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	return fmt.Sprintf("%q", r)
}

// space skips white space and comments.
func (p *parser) space() error {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p.i++
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '/':
			nl := bytes.IndexByte(p.src[p.i:], '\n')
			if nl < 0 {
				p.i = len(p.src)
			} else {
				p.i += nl + 1
			}
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '*':
			end := bytes.Index(p.src[p.i+2:], []byte("*/"))
			if end < 0 {
				return p.errf("unterminated /* comment")
			}
			p.i += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (*Value, error) {
	if depth > maxDepth {
		return nil, p.errf("nesting deeper than %d", maxDepth)
	}
	if p.i >= len(p.src) {
		return nil, p.errf("unexpected end of file, want a value")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Start: start, End: p.i, Str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, lit := range []struct {
		text string
		kind Kind
	}{{"true", Bool}, {"false", Bool}, {"null", Null}} {
		if bytes.HasPrefix(p.src[p.i:], []byte(lit.text)) {
			p.i += len(lit.text)
			if p.i < len(p.src) && isWordByte(p.src[p.i]) {
				p.i = start
				break
			}
			return &Value{Kind: lit.kind, Start: start, End: p.i, Bool: lit.text == "true"}, nil
		}
	}
	return nil, p.errf("unexpected %s, want a JSON value", p.show())
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func (p *parser) number() (*Value, error) {
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9') {
			p.i++
			continue
		}
		break
	}
	if !json.Valid(p.src[start:p.i]) {
		p.i = start
		return nil, p.errf("malformed number")
	}
	return &Value{Kind: Number, Start: start, End: p.i}, nil
}

// str reads a JSON string at p.i and decodes it as encoding/json does.
func (p *parser) str() (string, error) {
	start := p.i
	i := p.i + 1
	for {
		j := bytes.IndexAny(p.src[i:], "\"\\\n")
		if j < 0 || p.src[i+j] == '\n' {
			return "", p.errf("unterminated string")
		}
		i += j
		if p.src[i] == '"' {
			i++
			break
		}
		i += 2 // backslash and the escaped byte
		if i > len(p.src) {
			p.i = len(p.src)
			return "", p.errf("unterminated string")
		}
	}
	raw := p.src[start:i]
	if !utf8.Valid(raw) {
		return "", p.errf("string is not valid UTF-8")
	}
	if plain(raw[1 : len(raw)-1]) { // the common case: nothing to unescape
		p.i = i
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", p.errf("malformed string: %v", err)
	}
	p.i = i
	return s, nil
}

// plain reports a string body without escapes or control characters, whose
// decoded value is its bytes.
func plain(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return true
}

func (p *parser) object(depth int) (*Value, error) {
	v := &Value{Kind: Object, Start: p.i}
	p.i++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			v.End = p.i
			return v, nil
		}
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, p.errf("unexpected %s, want a quoted key or }", p.show())
		}
		ks := p.i
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		m := Member{Key: key, KeyStart: ks, KeyEnd: p.i}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.errf("unexpected %s, want : after key %q", p.show(), key)
		}
		p.i++
		if err := p.space(); err != nil {
			return nil, err
		}
		if m.Value, err = p.value(depth + 1); err != nil {
			return nil, err
		}
		m.End = p.i
		v.Members = append(v.Members, m)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			continue
		}
		return nil, p.errf("unexpected %s, want , or } after the value of %q", p.show(), key)
	}
}

func (p *parser) array(depth int) (*Value, error) {
	v := &Value{Kind: Array, Start: p.i}
	p.i++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			v.End = p.i
			return v, nil
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, e)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			continue
		}
		return nil, p.errf("unexpected %s, want , or ] in an array", p.show())
	}
}
