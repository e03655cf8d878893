package jsonline

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"
)

// The tracker's fast path inside strings, where nearly all of a large
// result's bytes are: eight bytes at a time, stopping only at a byte that
// needs a decision (a quote, a backslash, a control character, or a byte of
// a multi-byte UTF-8 sequence, which is checked). JSON text is UTF-8 (RFC
// 8259 §8.1); a line with invalid UTF-8 in a string is refused on the short
// and the streamed path alike, as a framing error, rather than replaced
// (replacing would forward a message other than the server's).

var errBadUTF8 = errors.New("invalid UTF-8 in a string")

const (
	lsb     = 0x0101010101010101
	msb     = 0x8080808080808080
	low7    = 0x7F7F7F7F7F7F7F7F
	quotes  = '"' * lsb
	slashes = '\\' * lsb
)

// plainEnd returns the index of the first byte at or after i in b that is
// a quote, a backslash, below 0x20, or (with high set to msb) above 0x7F;
// len(b) if none.
func plainEnd(b []byte, i int, high uint64) int {
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32 : i+32]
		if stops(binary.LittleEndian.Uint64(w), high)|stops(binary.LittleEndian.Uint64(w[8:]), high)|
			stops(binary.LittleEndian.Uint64(w[16:]), high)|stops(binary.LittleEndian.Uint64(w[24:]), high) != 0 {
			break
		}
	}
	for ; i+8 <= len(b); i += 8 {
		if m := stops(binary.LittleEndian.Uint64(b[i:]), high); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 && high != 0 {
			return i
		}
	}
	return i
}

// stops marks (top bit of the byte) exactly the bytes of the word x that
// are a quote, a backslash, below 0x20, or (if high is msb) above 0x7F.
// No test carries from one byte into the next: (x&low7)+low7 sets a byte's
// top bit when its low seven bits are not all zero, and (x&low7)+0x60 when
// they are 0x20 or more.
func stops(x, high uint64) uint64 {
	q, s := x^quotes, x^slashes
	nq := ((q & low7) + low7) | q // top bit: not a quote
	ns := ((s & low7) + low7) | s
	nc := ((x & low7) + 0x60*lsb) | x // top bit: not a control byte
	return (^(nq & ns & nc) | x&high) & msb
}

// shortString is stringRun with a fast path for a string (a member name,
// a short value) whose first stop, within the next eight bytes, is a quote.
func shortString(b []byte, i int) (j int, split bool, err error) {
	if i+8 <= len(b) {
		if m := stops(binary.LittleEndian.Uint64(b[i:]), msb); m != 0 {
			if j = i + bits.TrailingZeros64(m)>>3; b[j] == '"' {
				return j, false, nil
			}
		}
	}
	return stringRun(b, i)
}

// stringRun returns the end of the run of string bytes from i that needs
// no decision (escapes skipped, UTF-8 checked). split reports a UTF-8
// sequence cut by the end of b, from the returned index on.
func stringRun(b []byte, i int) (j int, split bool, err error) {
	j = i
	for {
		if j = plainEnd(b, j, msb); j == len(b) {
			return j, false, nil
		}
		switch c := b[j]; {
		case c >= 0x80:
			var e int
			if e, split, err = utf8Run(b, j); err != nil || split {
				return e, split, err
			}
			j = e
		case c == '\\':
			e := escapes(b, j)
			if e == j {
				return j, false, nil // incomplete or invalid: the state machine decides
			}
			j = e
		default:
			return j, false, nil
		}
	}
}

// escapes skips the escapes from the backslash b[j] on, and the plain
// bytes between them, as long as the next stop is in the following word
// (text dense with escapes); it returns at a stop that is not a complete
// escape, or before plain bytes that plainEnd skips faster.
func escapes(b []byte, j int) int {
	for {
		n := escapeLen(b, j)
		if n == 0 {
			return j
		}
		j += n
		if j+8 > len(b) {
			return j
		}
		m := stops(binary.LittleEndian.Uint64(b[j:]), msb)
		if m == 0 {
			return j
		}
		if j += bits.TrailingZeros64(m) >> 3; b[j] != '\\' {
			return j
		}
	}
}

// utf8Run checks the string bytes from j (a byte above 0x7F) up to the
// next quote, backslash or control byte, whole, and returns where they end.
func utf8Run(b []byte, j int) (end int, split bool, err error) {
	end = plainEnd(b, j, 0)
	run := b[j:end]
	if end == len(b) { // the chunk may end inside a sequence
		k := len(run) - 1
		for k > 0 && len(run)-k < utf8.UTFMax && !utf8.RuneStart(run[k]) {
			k--
		}
		if utf8.RuneStart(run[k]) && !utf8.FullRune(run[k:]) {
			if !validUTF8(run[:k]) {
				return j, false, errBadUTF8
			}
			return j + k, true, nil
		}
	}
	if !validUTF8(run) {
		return j, false, errBadUTF8
	}
	return end, false, nil
}

// escapeLen is the length of the complete, valid escape at b[j] (a
// backslash), 0 if it is not one or not complete in b.
func escapeLen(b []byte, j int) int {
	if j+1 >= len(b) {
		return 0
	}
	switch b[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if j+6 <= len(b) && isHex(b[j+2]) && isHex(b[j+3]) && isHex(b[j+4]) && isHex(b[j+5]) {
			return 6
		}
	}
	return 0
}

// runeTail takes the byte c that continues a UTF-8 sequence split across
// chunks (the tracker's part). done reports the sequence complete.
func (t *Tracker) runeTail(c byte) (done bool, err error) {
	t.part = append(t.part, c)
	if !utf8.FullRune(t.part) {
		return false, nil
	}
	if r, size := utf8.DecodeRune(t.part); r == utf8.RuneError && size <= 1 || size != len(t.part) {
		return false, errBadUTF8
	}
	t.part = t.part[:0]
	return true, nil
}

// partCloser completes a UTF-8 sequence cut by an aborted line (its first
// bytes were forwarded) into a valid character.
func partCloser(part []byte) []byte {
	if len(part) == 0 {
		return nil
	}
	need := 2
	switch lead := part[0]; {
	case lead >= 0xF0:
		need = 4
	case lead >= 0xE0:
		need = 3
	}
	var b []byte
	for n := len(part); n < need; n++ {
		c := byte(0x80)
		if n == 1 && part[0] == 0xE0 {
			c = 0xA0
		} else if n == 1 && part[0] == 0xF0 {
			c = 0x90
		}
		b = append(b, c)
	}
	return b
}
