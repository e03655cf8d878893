package jsonline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// responseOK is the oracle of a response line: valid JSON (encoding/json),
// valid UTF-8, one object whose top level holds, by exact names, only
// jsonrpc, id and exactly one of result and error, each once.
func responseOK(line []byte) bool {
	if !json.Valid(line) || !utf8.Valid(line) {
		return false
	}
	m, ok := topMembers(line)
	if !ok {
		return false
	}
	for k := range m {
		if k != "jsonrpc" && k != "id" && k != "result" && k != "error" {
			return false
		}
	}
	_, r := m["result"]
	_, e := m["error"]
	return r != e
}

// FuzzTracker checks the streamed reading (the tracker fed the rest of the
// line after a head, in chunks of every size) and the short one
// (checkServerLine) against the oracle: both accept exactly the lines it
// accepts, and what the tracker forwards is the server's message.
func FuzzTracker(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a\"b\\c\u00e9\n"}]}}`,
		`{"a":1},"jsonrpc":"2.0"}`,
		`{"a":1},"result":{"b":2}}`,
		`{"a":1},"method":"sampling/createMessage","params":{}}`,
		`{"a":1},"error":{"code":1,"message":"m"}}`,
		`{"a":1},"Result":2}`,
		`{"a":1},"ID":2}`,
		`{"a":"` + "\xff" + `"}}`,
		`{"a":"` + "\xe2\x82" + `"}}`,
		`{"a":"é€😀` + "\xed\xa0\x80" + `"}}`,
		`[1,-0.5e+3,true,false,null,"\ud83d\ude00"]}  `,
		`{"a":1}} {"id":2}`,
		`{"a":01}}`,
		`{"a":"x` + "\x01" + `"}}`,
		`"` + strings.Repeat("0123456789abcdef", 8) + `"}`,
		// Deep enough for the fast path (trackfast.go): rows of small
		// members, and tokens it hands back to scan.
		`{"structuredContent":{"rows":[{"id":1,"name":"r","ok":true,"x":null,"f":false,"s":-1.5e+2,"t":["a"]},{}]}}}`,
		`{"a":{"b":{"c":[1,-0,0.5e1,"é\n",tru]}}}}`,
		`{"a":{"b":{"c":{"d":01}}}}}`,
		`{"_meta":{"k":{"l":[1]}},"x":{"y":[{"z":"` + "\xff" + `"}]}}}`,
	} {
		f.Add([]byte(s), uint8(7))
	}
	const head = `{"jsonrpc":"2.0","id":1,"result":`
	f.Fuzz(func(t *testing.T, rest []byte, chunk uint8) {
		line := append([]byte(head), rest...)
		want := responseOK(line)
		if _, _, err := CheckServerLine(line); (err == nil) != want {
			t.Errorf("short path on %q: %v, oracle %v", line, err, want)
		}
		tr := NewTracker([]string{"jsonrpc", "id"}, nil)
		n := int(chunk)%64 + 1
		var out bytes.Buffer
		var err error
		for i := 0; i < len(rest) && err == nil; i += n {
			err = tr.Feed(rest[i:min(len(rest), i+n)], func(b []byte) { out.Write(b) })
		}
		if ok := err == nil && tr.done; ok != want {
			t.Fatalf("tracker (chunks of %d) on %q: %v done=%v, oracle %v", n, line, err, tr.done, want)
		}
		if !want {
			return
		}
		var got, exp bytes.Buffer
		if json.Compact(&got, append(append([]byte(head), out.Bytes()...), '}')) != nil || json.Compact(&exp, line) != nil || !bytes.Equal(got.Bytes(), exp.Bytes()) {
			t.Fatalf("tracker forwarded %q for %q", out.Bytes(), rest)
		}
	})
}

// The word-at-a-time skip stops exactly where a byte-by-byte loop does: for
// every byte value at every position of a buffer (and a second stop byte
// after it, which a carry must not hide the first behind), in both modes.
func TestPlainEndMatchesBytewise(t *testing.T) {
	stop := func(c byte, high bool) bool { return c == '"' || c == '\\' || c < 0x20 || high && c >= 0x80 }
	for _, high := range []bool{true, false} {
		h := uint64(0)
		if high {
			h = msb
		}
		for pos := 0; pos < 40; pos++ {
			for v := 0; v < 256; v++ {
				b := []byte(strings.Repeat("a", 41))
				b[pos], b[40] = byte(v), 0x1f
				want := 0
				for want < len(b) && !stop(b[want], high) {
					want++
				}
				if got := plainEnd(b, 0, h); got != want {
					t.Fatalf("high=%v byte %#x at %d: plainEnd %d, want %d", high, v, pos, got, want)
				}
			}
		}
	}
}

// The UTF-8 DFA accepts exactly what utf8.Valid accepts: every sequence of
// up to three bytes from the values that matter at every boundary, at
// every split point of a longer buffer around it.
func TestUTF8ValidMatchesStdlib(t *testing.T) {
	vals := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF}
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				for _, d := range vals {
					seq := []byte{a, b, c, d}
					for pad := 0; pad < 3; pad++ {
						in := append(append([]byte(strings.Repeat("é", pad)), seq...), strings.Repeat("x", pad)...)
						if got, want := validUTF8(in), utf8.Valid(in); got != want {
							t.Fatalf("validUTF8(% x) = %v, utf8.Valid %v", in, got, want)
						}
					}
				}
			}
		}
	}
}

// FuzzUTF8 compares the DFA with utf8.Valid on any input.
func FuzzUTF8(f *testing.F) {
	f.Add([]byte("naïve café € 😀"))
	f.Add([]byte("\xed\xa0\x80\xf4\x90\x80\x80"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(% x) = %v, utf8.Valid %v", b, got, want)
		}
	})
}
