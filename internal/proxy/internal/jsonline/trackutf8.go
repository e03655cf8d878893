package jsonline

// UTF-8 validation of the non-ASCII runs inside strings, as a shift-based
// DFA: the next state is one table load (independent of the state, so the
// CPU issues the loads ahead) and one shift. A run is split at a character
// boundary into two halves walked in one loop, so the two dependency chains
// overlap. It accepts exactly what utf8.Valid accepts (no surrogates, no
// overlong forms, nothing above U+10FFFF): TestUTF8ValidMatchesStdlib.

// The states are shift amounts: each table entry holds, at bit s, the
// next state from state s (6 bits). uErr is 0, so it is absorbing.
const (
	uErr = 6 * iota
	uAcc
	uT1 // one continuation byte (80..BF) to come
	uT2 // two
	uT3 // three
	uE0 // after E0: A0..BF, then one
	uED // after ED: 80..9F (no surrogates), then one
	uF0 // after F0: 90..BF, then two
	uF4 // after F4: 80..8F (up to U+10FFFF), then two
)

var utf8Table = func() (t [256]uint64) {
	set := func(lo, hi int, from, to uint64) {
		for c := lo; c <= hi; c++ {
			t[c] |= to << from
		}
	}
	set(0x00, 0x7F, uAcc, uAcc)
	set(0xC2, 0xDF, uAcc, uT1)
	set(0xE0, 0xE0, uAcc, uE0)
	set(0xE1, 0xEC, uAcc, uT2)
	set(0xED, 0xED, uAcc, uED)
	set(0xEE, 0xEF, uAcc, uT2)
	set(0xF0, 0xF0, uAcc, uF0)
	set(0xF1, 0xF3, uAcc, uT3)
	set(0xF4, 0xF4, uAcc, uF4)
	for _, s := range []uint64{uT1, uT2, uT3} { // any continuation byte
		set(0x80, 0xBF, s, s-6)
	}
	set(0xA0, 0xBF, uE0, uT1)
	set(0x80, 0x9F, uED, uT1)
	set(0x90, 0xBF, uF0, uT2)
	set(0x80, 0x8F, uF4, uT2)
	return t
}()

// validUTF8 reports whether b is valid UTF-8 (utf8.Valid, faster on text
// dense with multi-byte characters).
func validUTF8(b []byte) bool {
	mid := len(b) / 2
	for k := 0; k < 3 && mid < len(b) && b[mid]&0xC0 == 0x80; k++ {
		mid++ // the second half starts at a character, or is invalid anyway
	}
	x, y := b[:mid], b[mid:]
	if len(y) > len(x) {
		x, y = y, x
	}
	sx, sy := uint64(uAcc), uint64(uAcc)
	y = y[:len(y):len(y)]
	for k, c := range x[:len(y)] {
		sx = utf8Table[c] >> (sx & 63)
		sy = utf8Table[y[k]] >> (sy & 63)
	}
	for _, c := range x[len(y):] {
		sx = utf8Table[c] >> (sx & 63)
	}
	return sx&63 == uAcc && sy&63 == uAcc
}
