package lockfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// canonicalSeeds are inputs where a hand-written canonicaliser is most
// likely to differ from the reference: number formatting at the ES6
// boundaries, escapes, surrogate pairs and key order by UTF-16 code units.
var canonicalSeeds = []string{
	`0`, `-0`, `-0.0`, `1`, `-1`, `0.1`, `1.0`, `1e2`, `1E+2`, `1e-2`, `123456789012345`, `1234567890123456`,
	`12345678901234567890`, `9007199254740993`, `1e21`, `1e20`, `999999999999999999999`, `1e-6`, `1e-7`,
	`0.000001`, `0.0000001`, `5e-324`, `1.7976931348623157e308`, `1e400`, `-1e-400`, `2.5e+15`, `1.5e-9`,
	`4.35`, `0.30000000000000004`, `100e-2`, `01`, `1.`, `.5`, `+1`, `1e`, `-`, `0x10`,
	`"plain"`, `"\u00e9\u20ac\ud83d\ude00"`, `"\/\b\f\n\r\t\"\\"`, `"\u0000\u001f\u007f\u2028"`, `"é€😀"`,
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\udc00"`, `"\uD83D\uDE00"`, `"a\qb"`, "\"tab\there\"", `"unterminated`,
	`true`, `false`, `null`, `tru`, `nul`, `[]`, `{}`, `[1,2,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `[1 2]`,
	`{"b":1,"a":2,"c":{"z":[],"y":{}}}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`,
	`{"\ue000":1,"\ud83d\ude00":2,"\u00e9":3,"z":4,"":5}`, `{"😀":1,"":2}`,
	`{"peach":1,"péché":2,"pêche":3,"sin":4,"\u20ac":5,"\r":6,"1":7,"\u0080":8,"\u00f6":9,"\ud83d\ude00":10}`,
	` [ 1 , { "a" : "b" } ] `, `[1] x`, `1 2`, `{"a":[1,{"b":null}]}  `, `[[[[[[[[[[]]]]]]]]]]`,
	`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001]}`,
	` { "name" : "x y" ,` + "\n\t" + `"d":[ 1 , "a\" b" , { } ] } `, `{"name":"n","s":"  spaces  inside  "}`,
}

func FuzzCanonicalAgreesWithReference(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	// Nesting at our limit, one past it, and the reference's (10,000).
	for _, n := range []int{maxDepth, maxDepth + 1, 10000, 10001} {
		f.Add([]byte(strings.Repeat("[", n) + "1" + strings.Repeat("]", n)))
		f.Add([]byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)))
	}
	// Unsorted objects nested to the limit (their members are reordered
	// after the walk) and a few levels deep.
	f.Add(deepUnsorted(maxDepth-1, 100))
	f.Add(deepUnsorted(3, 20))
	// Real items: every lockfile in the shared testdata.
	paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "lockfiles", "*.lock"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, refErr := jcs.Transform(data)
		got, err := Canonical(data)
		switch {
		case refErr == nil && err != nil && nesting(data) > maxDepth && strings.Contains(err.Error(), errTooDeep):
			// Ours stops 4 levels earlier, so that a lockfile holding
			// the value stays within the 10,000 levels JSON readers take.
		case refErr == nil && err != nil:
			t.Fatalf("reference accepts %q (-> %s), ours refuses: %v", data, ref, err)
		case refErr != nil && err == nil:
			t.Fatalf("reference refuses %q (%v), ours gives %s", data, refErr, got)
		case err == nil && !bytes.Equal(got, ref):
			t.Fatalf("canonical forms differ for %q:\nours      %s\nreference %s", data, got, ref)
		}
		// The item reader's compact form (built on the same pass) is what
		// encoding/json's Compact writes.
		if utf8.Valid(data) {
			if _, compacted, _, err := canonicalItem(data, "name"); err == nil {
				var want bytes.Buffer
				if cerr := json.Compact(&want, data); cerr != nil || !bytes.Equal(compacted, want.Bytes()) {
					t.Fatalf("compact form of %q: %q, json.Compact %q (%v)", data, compacted, want.Bytes(), cerr)
				}
			}
		}
		// The exact mode (lockfile content) accepts a subset, with the same bytes.
		if utf8.Valid(data) {
			exact, xerr := appendCanonical(nil, data, true)
			if xerr == nil && (err != nil || !bytes.Equal(exact, got)) {
				t.Fatalf("exact mode gives %s, plain %s (%v)", exact, got, err)
			}
			if xerr != nil && err == nil && !strings.Contains(xerr.Error(), "number") {
				t.Fatalf("exact mode refused %q for something other than a number: %v", data, xerr)
			}
		}
	})
}

// The seeds above hold each interesting case; make sure they run through
// both canonicalisers and that some are accepted and some refused (so a
// canonicaliser that refuses everything cannot pass).
func TestCanonicalSeedsExerciseBothOutcomes(t *testing.T) {
	ok, bad := 0, 0
	for _, s := range canonicalSeeds {
		if _, err := jcs.Transform([]byte(s)); err == nil {
			ok++
		} else {
			bad++
		}
	}
	if ok < 30 || bad < 15 {
		t.Fatalf("seeds: %d accepted, %d refused by the reference", ok, bad)
	}
}

func BenchmarkCanonical(b *testing.B) {
	s := syntheticServer(1000)
	if err := NewServer(s); err != nil {
		b.Fatal(err)
	}
	var size int
	for _, t := range s.Tools {
		size += len(t)
	}
	b.SetBytes(int64(size))
	b.Run("mcpsum", func(b *testing.B) {
		for b.Loop() {
			for _, t := range s.Tools {
				if _, err := Canonical(t); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("gowebpki-jcs", func(b *testing.B) {
		for b.Loop() {
			for _, t := range s.Tools {
				if _, err := jcs.Transform(t); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func TestExactDigestKeepsNumbers(t *testing.T) {
	d := func(s string) string {
		t.Helper()
		x, err := ExactDigest([]byte(s))
		if err != nil {
			t.Fatalf("ExactDigest(%s): %v", s, err)
		}
		return x
	}
	for _, pair := range [][2]string{
		{`{"account":9007199254740993}`, `{"account":9007199254740992}`},
		{`{"x":1.0000000000000001}`, `{"x":1}`},
		{`[1e400]`, `[1e401]`},
		{`[9007199254740993]`, `["9007199254740993e0"]`},
	} {
		if d(pair[0]) == d(pair[1]) {
			t.Errorf("%s and %s share an exact digest", pair[0], pair[1])
		}
	}
	for _, same := range [][2]string{
		{`{"b":1.0,"a":"x"}`, `{"a":"x","b":1}`},
		{`[100]`, `[1e2]`},
		{`[9007199254740993]`, `[90071992547409930e-1]`},
	} {
		if d(same[0]) != d(same[1]) {
			t.Errorf("%s and %s differ", same[0], same[1])
		}
	}
	if got, _ := Digest([]byte(`{"a":1}`)); got != d(`{"a":1}`) {
		t.Error("ExactDigest differs from Digest where every number is exact")
	}
}

// nesting is how deep the objects and arrays of valid JSON nest.
func nesting(data []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i) - 1
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}
