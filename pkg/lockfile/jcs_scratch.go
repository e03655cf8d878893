package lockfile

import "sync"

// scratch is a canonicaliser's working memory: its stacks and the walk's
// output before reorder copies it into canonical order. Reading a lock
// canonicalises every item of it (a 1,000-tool lock: 1,000 items), and
// fresh stacks for each were a third of what reading the lock allocated;
// they are reused instead (sync.Pool drops idle ones at the next
// collections, so nothing is held for long).
type scratch struct {
	members []member16
	frames  []frame
	escKeys [][]byte
	objs    []unsortedObject
	order   []span
	steps   []step
	out     []byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooled bounds the output buffer a scratch keeps (bytes): one very
// large item does not pin its buffer for every later one.
const maxPooled = 1 << 20

// borrow gives c pooled stacks.
func (c *canonicaliser) borrow() *scratch {
	s := scratchPool.Get().(*scratch)
	c.members, c.frames, c.escKeys = s.members[:0], s.frames[:0], s.escKeys[:0]
	c.objs, c.order, c.steps = s.objs[:0], s.order[:0], s.steps[:0]
	return s
}

// buffer is the output buffer for a value of n bytes: the pooled one when
// it is large enough, else one of that size (grown by appends instead, a
// large item would allocate about twice its size).
func (s *scratch) buffer(n int) []byte {
	if cap(s.out) >= n {
		return s.out[:0]
	}
	return make([]byte, 0, n)
}

// release returns c's stacks (grown or not) and out, the walk's output
// buffer once nothing refers to it, to the pool.
func (c *canonicaliser) release(s *scratch, out []byte) {
	clear(c.escKeys) // decoded names: not kept alive by the pool
	s.members, s.frames, s.escKeys = c.members[:0], c.frames[:0], c.escKeys[:0]
	s.objs, s.order, s.steps = c.objs[:0], c.order[:0], c.steps[:0]
	if cap(out) <= maxPooled {
		s.out = out[:0]
	}
	scratchPool.Put(s)
}

// result is the canonical form in out (the walk's output, canonical from
// base on once reordered): in a buffer of its own, so that out can go back
// to the pool.
func (c *canonicaliser) result(out []byte, base int) []byte {
	if len(c.objs) == 0 {
		return append(make([]byte, 0, len(out)), out...)
	}
	return c.reorder(out, base)
}
