package proxy

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
	quotes  = '"' * lsb
	slashes = '\\' * lsb
)

// plainEnd returns the index of the first byte at or after i in b that is
// a quote, a backslash, below 0x20 or above 0x7F (len(b) if none).
func plainEnd(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, s := x^quotes, x^slashes
		// A byte of the mask is set at the first byte that is zero in q or
		// s, below 0x20 in x, or has its top bit set (carries can mark
		// only bytes above a marked one).
		m := ((q - lsb) &^ q) | ((s - lsb) &^ s) | ((x - 0x20*lsb) &^ x) | x
		if m &= msb; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}

// stringRun returns the end of the run of string bytes from i that needs
// no decision, checking the UTF-8 sequences in it. split reports a
// sequence cut by the end of b (from the returned index on).
func stringRun(b []byte, i int) (j int, split bool, err error) {
	j = plainEnd(b, i)
	for j < len(b) && b[j] >= 0x80 {
		r, size := utf8.DecodeRune(b[j:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(b[j:]) {
				return j, true, nil
			}
			return j, false, errBadUTF8
		}
		j = plainEnd(b, j+size)
	}
	return j, false, nil
}

// runeTail takes the byte c that continues a UTF-8 sequence split across
// chunks (the tracker's part). done reports the sequence complete.
func (t *tracker) runeTail(c byte) (done bool, err error) {
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
