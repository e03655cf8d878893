package lockfile

import (
	"slices"
	"strconv"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The canonicaliser's walk over containers, with its own stack of open
// containers instead of recursion: a value nested 10,000 deep costs a
// 10,000-entry slice, not 10,000 Go frames (whose stack the runtime copies
// as it grows and shrinks, and scans at every GC), so depth adds little to
// the cost of the same bytes flat (BenchmarkCanonicalDepth).

// frame is one open container of the walk.
// Offsets are int32 (see span) to keep a deep stack small.
type frame struct {
	// The current member's name: src[ks:ke], or escKeys[ks] when ke is -1
	// (a name with escapes, decoded).
	ks, ke int32
	n      int32 // members or elements before the current one
	mark   int32 // len(dst) after the opening bracket
	base   int32 // len(c.members) when the object opened
	start  int32 // where the current member's text starts in dst
	obj    bool
	sorted bool // the members so far are in canonical order
}

// walk appends the canonical form of the value at src[i] to dst, every
// object's members written in input order (the ones out of canonical
// order recorded for reorder), and returns where the value ends.
func (c *canonicaliser) walk(dst []byte, i int) ([]byte, int, *pathError) {
	src := c.src
	st := c.frames[:0]
	defer func() { c.frames = st[:0] }()
	var err *pathError
	for {
		// A value starts at i.
		if i >= len(src) {
			return nil, i, c.pathOf(st, len(st), syntaxErr("unexpected end"))
		}
		switch b := src[i]; b {
		case '{', '[':
			if len(st) >= maxDepth {
				return nil, i, c.pathOf(st, len(st), &pathError{msg: errTooDeep})
			}
			dst = append(dst, b)
			if i = c.ws(i + 1); i < len(src) && src[i] == b+2 { // '}' or ']'
				dst = append(dst, b+2)
				i++
				break
			}
			st = push(st, frame{obj: b == '{', sorted: true, mark: int32(len(dst)), base: int32(len(c.members))})
			if b == '{' {
				if dst, i, err = c.memberName(dst, i, &st[len(st)-1], len(st) == 1); err != nil {
					return nil, i, c.pathOf(st, len(st)-1, err)
				}
			}
			continue
		case '"':
			s, j, raw, err := c.str(i, false)
			if err != nil {
				return nil, j, c.pathOf(st, len(st), err)
			}
			if raw {
				dst = append(dst, src[i:j]...)
			} else {
				dst = jcsString(dst, s)
			}
			i = j
		case 't':
			dst, i, err = c.literal(dst, i, "true")
		case 'f':
			dst, i, err = c.literal(dst, i, "false")
		case 'n':
			dst, i, err = c.literal(dst, i, "null")
		default:
			dst, i, err = c.number(dst, i)
		}
		if err != nil {
			return nil, i, c.pathOf(st, len(st), err)
		}
		// A value ended at i: close the containers it completes.
		for {
			if len(st) == 0 {
				return dst, i, nil
			}
			f := &st[len(st)-1]
			if f.obj {
				if f.n > 0 && f.sorted && compareUTF16(c.members[len(c.members)-1].key, c.keyOf(f)) >= 0 {
					f.sorted = false
				}
				c.members = append(c.members, member16{c.keyOf(f), int(f.start), len(dst)})
			}
			f.n++
			if i = c.ws(i); i >= len(src) {
				return nil, i, c.pathOf(st, len(st)-1, syntaxErr("unterminated "+f.kind()))
			}
			if src[i] == ',' {
				dst = append(dst, ',')
				i = c.ws(i + 1)
				if f.obj {
					if dst, i, err = c.memberName(dst, i, f, len(st) == 1); err != nil {
						return nil, i, c.pathOf(st, len(st)-1, err)
					}
				}
				break
			}
			if !f.obj && src[i] == ']' {
				dst = append(dst, ']')
			} else if f.obj && src[i] == '}' {
				if dst, err = c.closeObject(dst, f); err != nil {
					return nil, i, c.pathOf(st, len(st)-1, err)
				}
			} else if f.obj {
				return nil, i, c.pathOf(st, len(st)-1, syntaxErr("want , or } in an object"))
			} else {
				return nil, i, c.pathOf(st, len(st)-1, syntaxErr("want , or ] in an array"))
			}
			i++
			st = st[:len(st)-1]
		}
	}
}

func (f *frame) kind() string {
	if f.obj {
		return "object"
	}
	return "array"
}

// memberName writes the name of the member at src[i] and its colon, and
// records it in f; top: f is the top-level object (where keyField is).
func (c *canonicaliser) memberName(dst []byte, i int, f *frame, top bool) ([]byte, int, *pathError) {
	src := c.src
	if i >= len(src) || src[i] != '"' {
		return nil, i, syntaxErr("want a string key in an object")
	}
	skey, j, raw, err := c.str(i, false)
	if err != nil {
		return nil, j, err
	}
	f.ks, f.ke, f.start = int32(i+1), int32(j-1), int32(len(dst))
	if raw {
		dst = append(dst, src[i:j]...)
	} else {
		f.ks, f.ke = int32(len(c.escKeys)), -1
		c.escKeys = append(c.escKeys, []byte(skey))
		dst = jcsString(dst, skey)
	}
	if i = c.ws(j); i >= len(src) || src[i] != ':' {
		return nil, i, syntaxErr("want : after an object key")
	}
	dst = append(dst, ':')
	i = c.ws(i + 1)
	if top && c.keyField != "" && string(c.keyOf(f)) == c.keyField && !c.hasKey {
		if err := c.itemKey(i); err != nil {
			return nil, i, err
		}
	}
	return dst, i, nil
}

// keyOf is the name of the member f is reading (without quotes, decoded).
func (c *canonicaliser) keyOf(f *frame) []byte {
	if f.ke < 0 {
		return c.escKeys[f.ks]
	}
	return c.src[f.ks:f.ke]
}

// closeObject writes the closing brace of the object f; members out of
// canonical order stay where they are: their order is recorded and the
// bytes move once, after the walk (reorder).
func (c *canonicaliser) closeObject(dst []byte, f *frame) ([]byte, *pathError) {
	ms := c.members[f.base:]
	c.members = c.members[:f.base]
	if f.sorted {
		return append(dst, '}'), nil
	}
	slices.SortStableFunc(ms, func(a, b member16) int { return compareUTF16(a.key, b.key) })
	for k := 1; k < len(ms); k++ {
		if string(ms[k].key) == string(ms[k-1].key) {
			return nil, &pathError{msg: "duplicate key " + termtext.Quoted(string(ms[k].key), 80)}
		}
	}
	lo := len(c.order)
	for _, m := range ms {
		c.order = push(c.order, span{int32(m.start), int32(m.end)})
	}
	c.objs = push(c.objs, unsortedObject{span{int32(f.mark - 1), int32(len(dst) + 1)}, int32(lo), int32(len(c.order))})
	return append(dst, '}'), nil
}

// pathOf adds to e the steps of the first n open containers (the member
// or element each is reading), innermost first.
func (c *canonicaliser) pathOf(st []frame, n int, e *pathError) *pathError {
	for k := n - 1; k >= 0; k-- {
		f := &st[k]
		key := string(c.keyOf(f))
		switch {
		case !f.obj:
			e.path = append(e.path, "["+strconv.Itoa(int(f.n))+"]")
		case isIdent(key) && len(key) <= 80:
			e.path = append(e.path, "."+key)
		default:
			e.path = append(e.path, "["+termtext.Quoted(key, 80)+"]")
		}
	}
	return e
}

// push is append growing by doubling: append grows a large slice by a
// quarter at a time, which allocates five times the final size of a stack
// as deep as 10,000 levels in all.
func push[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 64))
	}
	return append(s, v)
}
