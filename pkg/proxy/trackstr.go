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
// a quote, a backslash, below 0x20, or (with high set to msb) above 0x7F;
// len(b) if none.
func plainEnd(b []byte, i int, high uint64) int {
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32]
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

// stops marks (top bit of the byte) the first byte of the little-endian
// word x that is a quote, a backslash, below 0x20, or has its top bit set
// (if high is msb); carries can mark only bytes above a marked one, so
// the lowest mark is exact.
func stops(x, high uint64) uint64 {
	q, s := x^quotes, x^slashes
	if high != 0 {
		// A byte with its top bit set is a stop anyway, so the &^ x that
		// keeps such bytes out of the control test is not needed.
		return (((q - lsb) &^ q) | ((s - lsb) &^ s) | (x - 0x20*lsb) | x) & msb
	}
	return (((q - lsb) &^ q) | ((s - lsb) &^ s) | ((x - 0x20*lsb) &^ x)) & msb
}

// stringRun returns the end of the run of string bytes from i that needs
// no decision (simple escapes skipped, UTF-8 checked). split reports a
// UTF-8 sequence cut by the end of b, from the returned index on.
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
			n := escapeLen(b, j)
			if n == 0 {
				return j, false, nil // the state machine decides
			}
			j += n
		default:
			return j, false, nil
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
			if !utf8.Valid(run[:k]) {
				return j, false, errBadUTF8
			}
			return j + k, true, nil
		}
	}
	if !utf8.Valid(run) {
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
