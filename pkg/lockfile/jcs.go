package lockfile

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpsum/mcpsum/internal/termtext"
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
	s := c.borrow()
	defer c.release(s, s.out) // dst is the caller's: only the stacks are pooled
	i := skipWS(raw, 0)
	out, i, err := c.walk(dst, i)
	if err != nil {
		return nil, err.finish()
	}
	if i = skipWS(raw, i); i != len(raw) {
		return nil, errf("not valid UTF-8 JSON: unexpected %s after the value", termtext.Quoted(string(raw[i:min(len(raw), i+10)]), 80))
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
	s := c.borrow()
	i := skipWS(raw, 0)
	out, i, err := c.walk(s.buffer(len(raw)), i)
	defer func() { c.release(s, out) }()
	if err != nil {
		return "", err.finish()
	}
	if skipWS(raw, i) != len(raw) {
		return "", errf("not valid UTF-8 JSON: data after the value")
	}
	if len(c.objs) == 0 {
		return digestOf(out), nil
	}
	return digestOf(c.reorder(out, 0)), nil
}

// maxDepth bounds the nesting of a value mcpsum canonicalises (an item,
// serverInfo, capabilities): 10,000 levels, as the reference does and as
// encoding/json reads, less the four a lockfile puts around an item (the
// file, servers, the entry, the item list), so that a lockfile holding the
// deepest item lock accepts can still be read back (Parse reads the file
// with encoding/json's 10,000-level limit).
const maxDepth = 10000 - 4

// errTooDeep is the refusal of a value nested deeper than maxDepth.
var errTooDeep = "nested more than " + strconv.Itoa(maxDepth) + " levels deep, the most a lockfile can hold (JSON readers, mcpsum's included, stop at 10,000 levels and a lockfile adds 4)"

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
	frames      []frame    // the walk's open containers
	escKeys     [][]byte   // decoded member names that had escapes
	// compact, if wantCompact, receives src without its insignificant
	// white space (key order and escapes kept), built on the same pass.
	wantCompact bool
	compact     []byte
	cpos        int // src[cpos:] is not yet copied to compact
	// objs are the objects whose members were not in canonical order, and
	// order their members sorted (objs[k].lo:hi); see reorder.
	objs  []unsortedObject
	order []span
	steps []step // emit's stack
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

func (c *canonicaliser) literal(dst []byte, i int, lit string) ([]byte, int, *pathError) {
	if j := i + len(lit); j > len(c.src) || string(c.src[i:j]) != lit {
		return nil, i, syntaxErr("bad literal")
	}
	return append(dst, lit...), i + len(lit), nil
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
	s := c.borrow()
	i := c.ws(0)
	out, i, perr := c.walk(s.buffer(len(raw)), i)
	defer func() { c.release(s, out) }()
	if perr != nil {
		if perr.syntax {
			return nil, nil, "", perr.finish() // an item that is not JSON has no key
		}
		return nil, nil, c.key, perr.finish()
	}
	if i = c.ws(i); i != len(raw) {
		return nil, nil, c.key, errf("not valid UTF-8 JSON: unexpected %s after the value", termtext.Quoted(string(raw[i:min(len(raw), i+10)]), 80))
	}
	if !c.hasKey {
		return nil, nil, "", errf("item has no %q field", keyField)
	}
	return c.result(out, 0), append(c.compact, raw[c.cpos:]...), c.key, nil
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
