package jsonline

import (
	"bytes"
	"testing"
)

// fastSeeds are the edges of the fast path (trackfast.go): tokens cut by
// a chunk, closes back to the depths the rules read, the result's _meta
// at depth 3 next to other depth-3 objects, strings it hands back to scan,
// and invalid bytes at every kind of token.
var fastSeeds = []string{
	`{"structuredContent":{"rows":[{"id":1,"name":"row 1","ok":true,"score":-1.25e+2,"tags":["a","b"]},{"id":2,"x":null,"f":false}]}}`,
	`{"a":{"b":{"c":[1,2,{"d":"e"}],"f":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"evil","v":[{"w":1}]},"k":{"l":[true]}}}`,
	`{"_meta":{"k":{"l":[1]}},"x":{"y":{"z":[{}]}}}`,
	`{"a":{"b":{"c":[ 1 , -0 , 0.5 , 1e5 , 1E-5 , 2e+10 , -0.0e0 ]}}}`,
	`{"a":{"b":{"c":["é\u00e9\"\\x", "😀", "` + "\t" + `"]}}}`,
	`{"a":{"b":{"c":[01]}}}`,
	`{"a":{"b":{"c":[1.]}}}`,
	`{"a":{"b":{"c":[1e]}}}`,
	`{"a":{"b":{"c":[-]}}}`,
	`{"a":{"b":{"c":[tru, nul]}}}`,
	`{"a":{"b":{"c":[falsy]}}}`,
	`{"a":{"b":{"c":{"d" "e"}}}}`,
	`{"a":{"b":{"c":{"d":"e",}}}}`,
	`{"a":{"b":{"c":[1,]}}}`,
	`{"a":{"b":{"c":[1}}}}`,
	`{"a":{"b":{"c":{"d":1]}}}`,
	`{"a":{"b":{"c":["` + "\xff" + `"]}}}`,
	`{"a":{"b":{"c":["` + "\xe2\x82" + `"]}}}`,
	`{"a":{"b":{"c":{"` + "\x01" + `":1}}}}`,
	`{"a":{"b":{"c":[1` + "\x00" + `]}}}`,
	`{"resultType":"complete","ttlMs":{"a":{"b":1}},"_meta":{"io.modelcontextprotocol/serverInfo":[[1]]}}`,
	`[[[[1,[2,{"a":[3]}]]]],{"b":{"c":{}}}]`,
	// Names guessed from the object before (nameGuess): near misses.
	`{"a":{"b":{"c":[{"id":1,"ab":2},{"id":1,"ac":2},{"id" :1,"ab":3},{"idx":1},{"i\u0064":1},{"i\u0064":1},{"é":1},{"é":2},` +
		`{"a name of sixteen":1},{"a name of sixteen":2},{"fifteen bytes":1},{"fifteen bytes":2},{"a":{"b":1},"c":2},{"a":{"b":1},"c":2},{"id":x},{"id":1,"ab"}]}}}`,
	`{"a":{"b":{"c":[{"abcdefghij":1},{"abcdefghijk":1},{"abcdefghij":1},{"abcdefghi\"":1},{"abcdefghij":1},{"abcdefghij" :1}]}}}`,
	`{"a":{"b":{"c":[{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"ka":10,"kb":11,"kc":12,"kd":13,"ke":14,"kf":15,"kg":16,"kh":17},` +
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"ka":10,"kb":11,"kc":12,"kd":13,"ke":14,"kf":15,"kg":16,"kh":17}]}}}`,
}

// The fast path changes nothing but speed: fed in chunks of every size,
// with and without it, the tracker forwards the same bytes, stops with the
// same error, and closes a cut line the same way, in every mode.
func FuzzTrackerFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s), uint8(7), uint8(0))
		f.Add([]byte(s+"}"), uint8(64), uint8(1))
	}
	f.Fuzz(func(t *testing.T, rest []byte, chunk, mode uint8) {
		compareFast(t, rest, int(chunk)%64+1, mode)
	})
}

func TestTrackerFastSeeds(t *testing.T) {
	for _, s := range fastSeeds {
		for n := 1; n <= len(s)+1; n++ {
			for mode := uint8(0); mode < 5; mode++ {
				compareFast(t, []byte(s), n, mode)
				compareFast(t, []byte(s+"}"), n, mode)
			}
		}
	}
}

func compareFast(t *testing.T, rest []byte, n int, mode uint8) {
	t.Helper()
	if mode%5 == 4 && (len(rest) == 0 || rest[0] != '{') {
		return // validate reads from the message's '{' on (CheckServerLine)
	}
	type run struct {
		out    []byte
		err    string
		done   bool
		closer []byte
	}
	feed := func(slow bool) run {
		var tr *Tracker
		switch mode % 5 {
		case 0:
			tr = NewTracker([]string{"jsonrpc", "id"}, []byte(`{"name":"locked"}`))
		case 1:
			tr = NewTracker([]string{"jsonrpc"}, nil)
		case 2:
			tr = NewTracker([]string{"jsonrpc", "id"}, nil)
			tr.ForLegacy()
		case 3:
			tr = NewTracker([]string{"jsonrpc", "id"}, nil)
			tr.RefuseInput()
		default:
			tr = &Tracker{grammar: grammar{plain: true, st: tValue}}
		}
		tr.slow = slow
		var r run
		var err error
		for i := 0; i < len(rest) && err == nil; i += n {
			err = tr.Feed(rest[i:min(len(rest), i+n)], func(b []byte) { r.out = append(r.out, b...) })
		}
		if err != nil {
			r.err = err.Error()
		} else if mode%5 != 4 || len(tr.stack) > 0 {
			r.closer = tr.Closer()
		}
		r.done = tr.done
		return r
	}
	fast, slow := feed(false), feed(true)
	if !bytes.Equal(fast.out, slow.out) || fast.err != slow.err || fast.done != slow.done || !bytes.Equal(fast.closer, slow.closer) {
		t.Fatalf("mode %d, chunks of %d, %q:\nfast %q err=%q done=%v closer=%q\nslow %q err=%q done=%v closer=%q",
			mode%5, n, rest, fast.out, fast.err, fast.done, fast.closer, slow.out, slow.err, slow.done, slow.closer)
	}
}
