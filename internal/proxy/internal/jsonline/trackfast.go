package jsonline

import "encoding/binary"

// The tracker's fast path for structure (rows of small members: names,
// short strings, numbers, literals, punctuation) where no member rule
// applies: deeper than the depths the rules read (trackrules.go), or
// anywhere when only the grammar is checked (validate). It runs on local
// state, a whole token at a time, and hands back to the byte-by-byte
// machine (scan) at a token boundary whenever a token is not complete in
// the chunk, a byte is not what valid JSON has there (scan then reports
// the same error it always did), or a bracket would close back to the
// depths the rules read. It accepts only what scan accepts and leaves the
// state exactly as scan would have: FuzzTrackerFast and
// TestTrackerFastSeeds compare the two machines, FuzzTracker both with
// encoding/json.

// fastLow is the least depth (len(stack)) the fast path may stay at, 0 if
// it may not run at all.
func (t *Tracker) fastLow() int {
	low := 4
	switch {
	case t.slow:
		return 0
	case t.plain:
		low = 1
	case t.holding:
		return 0
	case len(t.stack) >= 3 && !t.inMeta:
		low = 3 // the depth-3 container is not the result's _meta: no rule reads it
	}
	if len(t.stack) < low || t.supAt >= low {
		return 0
	}
	return low
}

// fast runs the grammar from b[i] (t.st a state between tokens) over
// whole tokens and returns where it stopped, t's state updated.
func (t *Tracker) fast(b []byte, i, low int) int {
	i, t.st, t.stack = t.fastRun(b, i, low, t.st, t.stack)
	return i
}

// fastRun is fast on local state: each state is a label, and the usual
// path through a member ("name":value,) is straight jumps.
func (t *Tracker) fastRun(b []byte, i, low int, st tstate, stack []byte) (int, tstate, []byte) {
	n := len(b)
	top := stack[len(stack)-1]
	var c byte
	var j int
	var ok bool
	var guess [maxGuess]nameGuess // the names of the last object, by place
	mi := maxGuess                // the place of the next name in its object (maxGuess: not known)
	switch st {
	case tAfter:
		goto after
	case tColon:
		goto colon
	case tKey, tKeyOrEnd:
		goto key
	}
value: // tValue or tValueOrEnd
	if uint(i) >= uint(len(b)) { // and the compiler drops the bounds check of b[i]
		return i, st, stack
	}
	switch c = b[i]; {
	case c == '"':
		if j = quoteAhead(b, i+1); j < 0 {
			if j, ok = t.slowString(b, i, false); !ok {
				return j, tString, stack
			}
		}
		i = j
	case c >= '0' && c <= '9' || c == '-':
		if j = numberEnd(b, i); j < 0 {
			return i, st, stack // cut by the chunk, or invalid: scan decides
		}
		i = j
	case c == '{':
		stack = append(stack, c)
		top = c
		i++
		st = tKeyOrEnd
		mi = 0
		goto key
	case c == '[':
		stack = append(stack, c)
		top = c
		i++
		st = tValueOrEnd
		goto value
	case c == 't' || c == 'n':
		if i+4 > n || string(b[i:i+4]) != "true" && string(b[i:i+4]) != "null" {
			return i, st, stack
		}
		i += 4
	case c == 'f':
		if i+5 > n || string(b[i+1:i+5]) != "alse" {
			return i, st, stack
		}
		i += 5
	case c == ']' && st == tValueOrEnd:
		if len(stack) <= low {
			return i, st, stack
		}
		stack = stack[:len(stack)-1]
		top = stack[len(stack)-1]
		i++
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		i++
		goto value
	default:
		return i, st, stack
	}
	st = tAfter
after:
	if uint(i) >= uint(len(b)) {
		return i, st, stack
	}
	switch c = b[i]; {
	case c == ',':
		i++
		if top == '{' {
			st = tKey
			goto key
		}
		st = tValue
		goto value
	case c == '}' && top == '{' || c == ']' && top == '[':
		if len(stack) <= low {
			return i, st, stack
		}
		if c == '}' {
			mi = maxGuess // the place in the object around it is not known
		}
		stack = stack[:len(stack)-1]
		top = stack[len(stack)-1]
		i++
		goto after
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		i++
		goto after
	}
	return i, st, stack
key: // tKey or tKeyOrEnd
	if uint(i) >= uint(len(b)) {
		return i, st, stack
	}
	if c = b[i]; c != '"' {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
			goto key
		case c == '}' && st == tKeyOrEnd:
			if len(stack) <= low {
				return i, st, stack
			}
			stack = stack[:len(stack)-1]
			top = stack[len(stack)-1]
			i++
			st = tAfter
			mi = maxGuess
			goto after
		}
		return i, st, stack
	}
	if mi < maxGuess {
		// Rows repeat their names: the name and colon at this place in
		// the last object, checked whole, are a name and colon here (the
		// next position is known before the bytes are).
		if g := &guess[mi]; g.n != 0 && i+16 <= len(b) {
			w := b[i : i+16 : i+16]
			if (binary.LittleEndian.Uint64(w)^g.w0)&g.m0|(binary.LittleEndian.Uint64(w[8:])^g.w1)&g.m1 == 0 {
				i += int(g.n)
				mi++
				st = tValue
				goto value
			}
		}
	}
	if j = quoteAhead(b, i+1); j < 0 {
		if j, ok = t.slowString(b, i, true); !ok {
			return j, tString, stack
		}
	}
	if mi < maxGuess {
		if j < len(b) && b[j] == ':' && j+1-i <= 16 && i+16 <= len(b) {
			guess[mi] = newGuess(b[i:i+16], j+1-i)
		}
		mi++
	}
	i = j
	st = tColon
colon:
	if uint(i) >= uint(len(b)) {
		return i, st, stack
	}
	switch c = b[i]; {
	case c == ':':
		i++
		st = tValue
		goto value
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		i++
		goto colon
	}
	return i, st, stack
}

// maxGuess is how many names of an object the fast path remembers.
const maxGuess = 16

// nameGuess is a name and its colon as the bytes they were (n of them,
// at most 16: the first n bytes of w0, w1 under the masks m0, m1).
type nameGuess struct {
	w0, w1, m0, m1 uint64
	n              uint8
}

// newGuess remembers the first n bytes of w (16 bytes).
func newGuess(w []byte, n int) nameGuess {
	g := nameGuess{w0: binary.LittleEndian.Uint64(w), w1: binary.LittleEndian.Uint64(w[8:]), n: uint8(n)}
	g.m0, g.m1 = ^uint64(0), ^uint64(0)
	if n < 8 {
		g.m0, g.m1 = 1<<(8*n)-1, 0
	} else if n < 16 {
		g.m1 = 1<<(8*(n-8)) - 1
	}
	g.w0 &= g.m0
	g.w1 &= g.m1
	return g
}

// quoteAhead returns the index after the closing quote of a short string
// whose body starts at b[j] if its first byte that needs a decision (as
// plainEnd) is that quote, within 16 bytes; -1 otherwise (plainEnd is
// faster on longer ones). A byte at a time: faster than plainEnd's words
// on names and short values.
func quoteAhead(b []byte, j int) int {
	if uint(j) > uint(len(b)) {
		return -1
	}
	for k, c := range b[j:min(len(b), j+16)] {
		if strStop[c] {
			if c == '"' {
				return j + k + 1
			}
			return -1
		}
	}
	return -1
}

// strStop marks the bytes plainEnd stops at in a string: a quote, a
// backslash, a control byte, a byte above 0x7F.
var strStop = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// slowString reads the string whose opening quote is b[i] (escapes,
// non-ASCII, a long one). ok: it ended, at j (after its closing quote).
// Otherwise the string is being read (t.isKey set) and j is where scan goes on
// reading it.
func (t *Tracker) slowString(b []byte, i int, key bool) (j int, ok bool) {
	k, split, err := stringRun(b, i+1)
	if err == nil && !split && k < len(b) && b[k] == '"' {
		return k + 1, true
	}
	t.isKey = key
	if err == nil && !split {
		return k, false // scan goes on from the stop
	}
	return i + 1, false // scan reads the string again and decides
}

// numberEnd returns the end of the number starting at b[i], -1 if it is
// not a valid number or may go on past the end of b.
func numberEnd(b []byte, i int) int {
	n := len(b)
	if uint(i) >= uint(n) {
		return -1
	}
	if b[i] == '-' {
		if i++; i == n {
			return -1
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i++; i < n && b[i]-'0' < 10; i++ {
		}
	default:
		return -1
	}
	if i < n && b[i] == '.' {
		k := i + 1
		for i = k; i < n && b[i]-'0' < 10; i++ {
		}
		if i == k {
			return -1
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		k := i
		for ; i < n && b[i]-'0' < 10; i++ {
		}
		if i == k {
			return -1
		}
	}
	if i == n {
		return -1
	}
	return i
}
