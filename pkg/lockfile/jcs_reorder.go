package lockfile

import "slices"

// span is a range of the walk's output. Offsets are int32: the
// canonicaliser refuses input over maxCanonicalInput, whose canonical form
// (at most about 5x: "1e20" is 21 digits) stays under 2 GiB, and the spans
// of a deep input are most of what reordering allocates.
type span struct{ start, end int32 }

// maxCanonicalInput bounds the input the canonicaliser reads: 4x the
// largest message line or lockfile mcpsum reads.
const maxCanonicalInput = 256 << 20

func tooLarge(raw []byte) error {
	if len(raw) > maxCanonicalInput {
		return errf("JSON value of %d bytes is too large to canonicalise (the limit is 256 MiB)", len(raw))
	}
	return nil
}

// unsortedObject is an object whose members the walk wrote in input order,
// not canonical order: its span in the walk's output (braces included) and
// its members' spans, sorted, in canonicaliser.order[lo:hi].
type unsortedObject struct {
	span
	lo, hi int32
}

// reorder returns the canonical form from the walk's output out, whose
// bytes from base on are the value with every object's members in input
// order. Each byte is copied once: the objects that need their members
// sorted are visited outermost first, and each of their members' spans is
// copied in sorted order, descending into the unsorted objects inside it.
// (Sorting in place at the end of each object instead copies a subtree once
// per enclosing level: O(size x depth) on deeply nested unsorted input.)
func (c *canonicaliser) reorder(out []byte, base int) []byte {
	if len(c.objs) == 0 {
		return out
	}
	slices.SortFunc(c.objs, func(a, b unsortedObject) int { return int(a.start - b.start) })
	dst := make([]byte, base, len(out))
	copy(dst, out[:base])
	return c.emit(dst, out, span{int32(base), int32(len(out))}, 0)
}

// emit appends out[s.start:s.end] to dst with the unsorted objects in it
// (objs[k:], by start) written in canonical order. Each entry of its stack
// copies a span s, the unsorted objects from objs[k] inside it written in
// order by the entries above; an entry for objs[o] then moves on to the
// object's next member (order[n]), and ends with the object.
func (c *canonicaliser) emit(dst, out []byte, s span, k int) []byte {
	st := append(c.steps[:0], step{s: s, k: int32(k), o: -1})
	defer func() { c.steps = st[:0] }()
	for len(st) > 0 {
		f := &st[len(st)-1]
		if int(f.k) < len(c.objs) && c.objs[f.k].start < f.s.end { // an unsorted object inside
			oi, o := f.k, c.objs[f.k]
			dst = append(dst, out[f.s.start:o.start]...)
			dst = append(dst, '{')
			f.s.start, f.k = o.end, int32(c.firstObject(int(oi)+1, o.end))
			st = push(st, step{o: oi, n: o.lo})
			continue
		}
		dst = append(dst, out[f.s.start:f.s.end]...)
		if f.o < 0 {
			st = st[:len(st)-1]
			continue
		}
		o := c.objs[f.o]
		if f.n == o.hi {
			dst = append(dst, '}')
			st = st[:len(st)-1]
			continue
		}
		if f.n > o.lo {
			dst = append(dst, ',')
		}
		f.s = c.order[f.n]
		f.n++
		f.k = int32(c.firstObject(int(f.o)+1, f.s.start))
	}
	return dst
}

// step is one entry of emit's stack.
type step struct {
	s       span
	k, o, n int32
}

// firstObject is the index of the first unsorted object from objs[k:] that
// starts at or after pos.
func (c *canonicaliser) firstObject(k int, pos int32) int {
	n, _ := slices.BinarySearchFunc(c.objs[k:], pos, func(o unsortedObject, p int32) int { return int(o.start - p) })
	return k + n
}
