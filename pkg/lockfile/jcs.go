package lockfile

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// appendCanonical is mcpsum's RFC 8785 (JCS) canonicaliser: one pass over a
// JSON value that checks it strictly and appends its canonical form to dst.
// It agrees byte for byte with github.com/gowebpki/jcs (the reference, kept
// in the tests: FuzzCanonicalAgreesWithReference) and is about three times
// faster (BenchmarkCanonical, 1,000 tools, both in one run), which matters
// because every digest of a lockfile is recomputed on every load (I3). Besides JCS's own refusals (bad syntax, lone surrogates, numbers out
// of double range, duplicate keys) it refuses numbers whose exact value JCS
// would change (checkNumber), so that two different surfaces never share a
// digest, when exact is set (exact false is plain RFC 8785).
//
// raw must be valid UTF-8 (the caller checks once for the whole input).
// Errors carry the path of the offending value, e.g. "inputSchema.properties".
func appendCanonical(dst, raw []byte, exact bool) ([]byte, error) {
	if err := tooLarge(raw); err != nil {
		return nil, err
	}
	c := canonicaliser{src: raw, exact: exact}
	i := skipWS(raw, 0)
	out, i, err := c.value(dst, i, 0)
	if err != nil {
		return nil, err.finish()
	}
	if i = skipWS(raw, i); i != len(raw) {
		return nil, errf("not valid UTF-8 JSON: unexpected %s after the value", quote(string(raw[i:min(len(raw), i+10)])))
	}
	return c.reorder(out, len(dst)), nil
}

// ExactDigest is Digest with every number kept exact: a number whose value
// RFC 8785 would change (9007199254740993, 1.0000000000000001, 1e400) is
// written as its exact decimal value ("9007199254740993e0") instead of the
// nearest double's. No ES6 number text has that value (it would parse to a
// double whose shortest form is that value), so two JSON values share an
// ExactDigest only when they are equal as exact numbers, strings and
// structure. It binds a call's arguments to an approval.
func ExactDigest(raw []byte) (string, error) {
	if !utf8.Valid(raw) {
		return "", errf("not valid UTF-8")
	}
	c := canonicaliser{src: raw, keepNumbers: true}
	i := skipWS(raw, 0)
	out, i, err := c.value(make([]byte, 0, len(raw)), i, 0)
	if err != nil {
		return "", err.finish()
	}
	if skipWS(raw, i) != len(raw) {
		return "", errf("not valid UTF-8 JSON: data after the value")
	}
	return digestOf(c.reorder(out, 0)), nil
}

// maxDepth bounds nesting, as the reference does.
const maxDepth = 10000

type canonicaliser struct {
	src []byte
	// keyField, if set, is a member of the top-level object whose string
	// value is wanted (an item's key); key and hasKey receive it.
	keyField string
	key      string
	hasKey   bool
	exact    bool // refuse numbers whose value JCS changes
	// keepNumbers writes a number whose value JCS would change as its
	// exact decimal value instead (see ExactDigest).
	keepNumbers bool
	members     []member16 // scratch stack of object members, shared by all levels
	// compact, if wantCompact, receives src without its insignificant
	// white space (key order and escapes kept), built on the same pass.
	wantCompact bool
	compact     []byte
	cpos        int // src[cpos:] is not yet copied to compact
	// objs are the objects whose members were not in canonical order, and
	// order their members sorted (objs[k].lo:hi); see reorder.
	objs  []unsortedObject
	order []span
}

// member16 is one object member being sorted: its decoded key and the span
// of its canonical `"key":value` text in the output.
type member16 struct {
	key        []byte
	start, end int
}

// pathError is an error inside a value; each level of the walk adds its
// step to path on the way out (innermost first).
type pathError struct {
	msg    string
	path   []string
	syntax bool // not JSON at all
}

func (e *pathError) finish() error {
	if len(e.path) == 0 {
		return errf("%s at top level", e.msg)
	}
	slices.Reverse(e.path)
	if n := len(e.path); n > 2*pathEnds {
		// Deep input: name the outer and inner ends of the path only.
		e.path = append(e.path[:pathEnds:pathEnds], append([]string{"…(" + strconv.Itoa(n-2*pathEnds) + " levels)…"}, e.path[n-pathEnds:]...)...)
	}
	return errf("%s at %s", e.msg, strings.TrimPrefix(strings.Join(e.path, ""), "."))
}

// pathEnds is how many steps of an error's path are named at each end.
const pathEnds = 8

func syntaxErr(what string) *pathError {
	return &pathError{msg: "not valid UTF-8 JSON: " + what, syntax: true}
}

// ws skips white space at i, and leaves it out of the compact form.
func (c *canonicaliser) ws(i int) int {
	j := skipWS(c.src, i)
	if j > i && c.wantCompact {
		c.compact = append(c.compact, c.src[c.cpos:i]...)
		c.cpos = j
	}
	return j
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func (c *canonicaliser) value(dst []byte, i, depth int) ([]byte, int, *pathError) {
	src := c.src
	if i >= len(src) {
		return nil, i, syntaxErr("unexpected end")
	}
	switch src[i] {
	case '{':
		return c.object(dst, i, depth+1)
	case '[':
		return c.array(dst, i, depth+1)
	case '"':
		s, j, raw, err := c.str(i, false)
		if err != nil {
			return nil, j, err
		}
		if raw {
			return append(dst, src[i:j]...), j, nil
		}
		return jcsString(dst, s), j, nil
	case 't':
		return c.literal(dst, i, "true")
	case 'f':
		return c.literal(dst, i, "false")
	case 'n':
		return c.literal(dst, i, "null")
	}
	return c.number(dst, i)
}

func (c *canonicaliser) literal(dst []byte, i int, lit string) ([]byte, int, *pathError) {
	if j := i + len(lit); j > len(c.src) || string(c.src[i:j]) != lit {
		return nil, i, syntaxErr("bad literal")
	}
	return append(dst, lit...), i + len(lit), nil
}

func (c *canonicaliser) array(dst []byte, i, depth int) ([]byte, int, *pathError) {
	if depth > maxDepth {
		return nil, i, syntaxErr("nested too deeply")
	}
	dst = append(dst, '[')
	i = c.ws(i + 1)
	if i < len(c.src) && c.src[i] == ']' {
		return append(dst, ']'), i + 1, nil
	}
	for n := 0; ; n++ {
		if n > 0 {
			dst = append(dst, ',')
		}
		var err *pathError
		if dst, i, err = c.value(dst, i, depth); err != nil {
			err.path = append(err.path, "["+strconv.Itoa(n)+"]")
			return nil, i, err
		}
		i = c.ws(i)
		if i >= len(c.src) {
			return nil, i, syntaxErr("unterminated array")
		}
		switch c.src[i] {
		case ',':
			i = c.ws(i + 1)
		case ']':
			return append(dst, ']'), i + 1, nil
		default:
			return nil, i, syntaxErr("want , or ] in an array")
		}
	}
}

func (c *canonicaliser) object(dst []byte, i, depth int) ([]byte, int, *pathError) {
	if depth > maxDepth {
		return nil, i, syntaxErr("nested too deeply")
	}
	dst = append(dst, '{')
	mark := len(dst)
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	i = c.ws(i + 1)
	if i < len(c.src) && c.src[i] == '}' {
		return append(dst, '}'), i + 1, nil
	}
	sorted := true
	for n := 0; ; n++ {
		if i >= len(c.src) || c.src[i] != '"' {
			return nil, i, syntaxErr("want a string key in an object")
		}
		skey, j, raw, err := c.str(i, false)
		if err != nil {
			return nil, j, err
		}
		// The key as bytes: a slice of the input unless it had escapes.
		key := c.src[i+1 : j-1]
		if !raw {
			key = []byte(skey)
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		start := len(dst)
		if raw {
			dst = append(dst, c.src[i:j]...)
		} else {
			dst = jcsString(dst, skey)
		}
		i = c.ws(j)
		if i >= len(c.src) || c.src[i] != ':' {
			return nil, i, syntaxErr("want : after an object key")
		}
		dst = append(dst, ':')
		i = c.ws(i + 1)
		if depth == 1 && c.keyField != "" && string(key) == c.keyField && !c.hasKey {
			if err := c.itemKey(i); err != nil {
				return nil, i, err
			}
		}
		if dst, i, err = c.value(dst, i, depth); err != nil {
			if k := string(key); isIdent(k) && len(k) <= 80 {
				err.path = append(err.path, "."+k)
			} else {
				err.path = append(err.path, "["+quote(k)+"]")
			}
			return nil, i, err
		}
		if n > 0 && sorted && compareUTF16(c.members[len(c.members)-1].key, key) >= 0 {
			sorted = false
		}
		c.members = append(c.members, member16{key, start, len(dst)})
		i = c.ws(i)
		if i >= len(c.src) {
			return nil, i, syntaxErr("unterminated object")
		}
		if c.src[i] == '}' {
			i++
			break
		}
		if c.src[i] != ',' {
			return nil, i, syntaxErr("want , or } in an object")
		}
		i = c.ws(i + 1)
	}
	if sorted {
		return append(dst, '}'), i, nil
	}
	ms := c.members[base:]
	slices.SortStableFunc(ms, func(a, b member16) int { return compareUTF16(a.key, b.key) })
	for k := 1; k < len(ms); k++ {
		if bytes.Equal(ms[k].key, ms[k-1].key) {
			return nil, i, &pathError{msg: "duplicate key " + quote(string(ms[k].key))}
		}
	}
	// The members stay where they are; their order is recorded and the
	// bytes move once, after the walk (reorder).
	lo := len(c.order)
	for _, m := range ms {
		c.order = append(c.order, span{int32(m.start), int32(m.end)})
	}
	c.objs = append(c.objs, unsortedObject{span{int32(mark - 1), int32(len(dst) + 1)}, int32(lo), int32(len(c.order))})
	return append(dst, '}'), i, nil
}

// itemKey records the string at i as the item's key.
func (c *canonicaliser) itemKey(i int) *pathError {
	if i >= len(c.src) || c.src[i] != '"' {
		return &pathError{msg: "item field " + strconv.Quote(c.keyField) + ": want a string, got " + typeName(c.src[i:])}
	}
	s, _, _, err := c.str(i, true)
	if err != nil {
		return err
	}
	c.key, c.hasKey = s, true
	return nil
}

// canonicalItem is appendCanonical (exact) for an item, also returning the
// string value of its top-level member keyField.
func canonicalItem(raw []byte, keyField string) (canon, compacted []byte, key string, err error) {
	if err := tooLarge(raw); err != nil {
		return nil, nil, "", err
	}
	c := canonicaliser{src: raw, exact: true, keyField: keyField, wantCompact: true, compact: make([]byte, 0, len(raw))}
	i := c.ws(0)
	out, i, perr := c.value(make([]byte, 0, len(raw)), i, 0)
	if perr != nil {
		if perr.syntax {
			return nil, nil, "", perr.finish() // an item that is not JSON has no key
		}
		return nil, nil, c.key, perr.finish()
	}
	if i = c.ws(i); i != len(raw) {
		return nil, nil, c.key, errf("not valid UTF-8 JSON: unexpected %s after the value", quote(string(raw[i:min(len(raw), i+10)])))
	}
	if !c.hasKey {
		return nil, nil, "", errf("item has no %q field", keyField)
	}
	return c.reorder(out, 0), append(c.compact, raw[c.cpos:]...), c.key, nil
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts
// object keys. It differs from byte order only between a supplementary
// character (a surrogate pair, 0xD800...) and U+E000...U+FFFF.
func compareUTF16(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == len(a) || n == len(b) {
		return len(a) - len(b)
	}
	for n > 0 && !utf8.RuneStart(a[n]) {
		n--
	}
	ra, _ := utf8.DecodeRune(a[n:])
	rb, _ := utf8.DecodeRune(b[n:])
	ua, ub := firstUnit(ra), firstUnit(rb)
	if ua != ub {
		return int(ua) - int(ub)
	}
	return int(ra) - int(rb) // same high surrogate: the low ones follow code point order
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}
