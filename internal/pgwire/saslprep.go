package pgwire

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// saslprep prepares a SCRAM password as libpq's pg_saslprep does (RFC 4013
// SASLprep): ASCII passes unchanged; otherwise non-ASCII spaces become
// spaces, characters mapped to nothing go, the rest is NFKC-normalised, and
// when the result holds a prohibited or unassigned character, or breaks the
// bidirectional rule (RFC 3454 section 6), or the password is not UTF-8, the
// raw password is used instead (so a server that stored it the same way
// still matches). Unassigned and bidirectional classes come from the
// Unicode version Go links, not Unicode 3.2: they differ only for
// characters added since 2002.
func saslprep(pw string) string {
	ascii := true
	for i := 0; i < len(pw); i++ {
		if pw[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(pw) {
		return pw
	}
	var b strings.Builder
	for _, r := range pw {
		switch {
		case nonASCIISpace(r):
			b.WriteByte(' ')
		case mappedToNothing(r):
		default:
			b.WriteRune(r)
		}
	}
	out := norm.NFKC.String(b.String())
	if out == "" {
		return pw
	}
	var randAL, l bool
	for _, r := range out {
		if prohibited(r) || !assigned(r) {
			return pw
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.R, bidi.AL:
			randAL = true
		case bidi.L:
			l = true
		}
	}
	if randAL {
		first, _ := utf8.DecodeRuneInString(out)
		last, _ := utf8.DecodeLastRuneInString(out)
		if l || !isRandAL(first) || !isRandAL(last) {
			return pw
		}
	}
	return out
}

func isRandAL(r rune) bool {
	p, _ := bidi.LookupRune(r)
	return p.Class() == bidi.R || p.Class() == bidi.AL
}

// nonASCIISpace is RFC 3454 table C.1.2.
func nonASCIISpace(r rune) bool {
	return r == 0xa0 || r == 0x1680 || (r >= 0x2000 && r <= 0x200b) || r == 0x202f || r == 0x205f || r == 0x3000
}

// mappedToNothing is RFC 3454 table B.1.
func mappedToNothing(r rune) bool {
	switch r {
	case 0xad, 0x34f, 0x1806, 0x180b, 0x180c, 0x180d, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff:
		return true
	}
	return r >= 0xfe00 && r <= 0xfe0f
}

// prohibited is RFC 4013's prohibited output: RFC 3454 tables C.1.2 and
// C.2.1 through C.9.
func prohibited(r rune) bool {
	in := func(lo, hi rune) bool { return r >= lo && r <= hi }
	switch {
	case nonASCIISpace(r), // C.1.2
		r < 0x20 || r == 0x7f, // C.2.1
		in(0x80, 0x9f), r == 0x6dd, r == 0x70f, r == 0x180e, r == 0x200c, r == 0x200d, r == 0x2028, r == 0x2029,
		in(0x2060, 0x2063), in(0x206a, 0x206f), r == 0xfeff, in(0xfff9, 0xfffc), in(0x1d173, 0x1d17a), // C.2.2
		in(0xe000, 0xf8ff), in(0xf0000, 0xffffd), in(0x100000, 0x10fffd), // C.3
		in(0xfdd0, 0xfdef), r&0xfffe == 0xfffe, // C.4
		in(0xd800, 0xdfff),                                                   // C.5
		in(0xfff9, 0xfffd),                                                   // C.6
		in(0x2ff0, 0x2ffb),                                                   // C.7
		r == 0x340, r == 0x341, r == 0x200e, r == 0x200f, in(0x202a, 0x202e), // C.8
		r == 0xe0001, in(0xe0020, 0xe007f): // C.9
		return true
	}
	return false
}

// assigned is whether r has a general category other than Cn.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
}
