package lockfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"regexp"
	"testing"

	"github.com/gowebpki/jcs"
)

// Seeds live in testdata/fuzz/<Target>/ and run in every `go test`.

func FuzzParseRoundTrip(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.lock", data)
		if err != nil {
			var fe *FormatError
			var ie *IntegrityError
			if !errors.As(err, &fe) && !errors.As(err, &ie) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		out, err := Marshal(file)
		if err != nil {
			t.Fatalf("Marshal of a parsed file: %v", err)
		}
		file2, err := Parse("out.lock", out)
		if err != nil {
			t.Fatalf("Marshal output does not parse: %v\n%s", err, out)
		}
		out2, err := Marshal(file2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("parse -> marshal -> parse -> marshal not stable (err %v)", err)
		}
		for name, s := range file.Servers {
			if fs := Compare(s, file2.Servers[name]); len(fs) != 0 {
				t.Fatalf("server %q drifted through a round trip: %v", name, fs)
			}
			checkSurfaceComposition(t, s)
		}
	})
}

// checkSurfaceComposition checks computeDigests' assembled surface against
// the definition: JCS over the entry without digests and policy.
func checkSurfaceComposition(t *testing.T, s *Server) {
	t.Helper()
	var b bytes.Buffer
	if err := appendEntry(&b, s, false); err != nil {
		t.Fatal(err)
	}
	ref, err := jcs.Transform(b.Bytes()) // the reference canonicaliser
	if err != nil {
		t.Fatal(err)
	}
	want := digestOf(ref)
	forms, ferr := normalize(s) // idempotent on a normalized server
	if ferr != nil {
		t.Fatal(ferr)
	}
	d, err := computeDigests(s, forms)
	if err != nil || d.Surface != want {
		t.Fatalf("assembled surface digest %s, definition %s (err %v)", d.Surface, want, err)
	}
}

func TestSurfaceComposition(t *testing.T) {
	for _, n := range []string{"valid.lock", "modern.lock", "seed.lock"} {
		for _, s := range mustParse(t, n, testdata(t, "lockfiles/"+n)).Servers {
			checkSurfaceComposition(t, s)
		}
	}
	s := syntheticServer(50)
	ins := "ctl \x01\x1f \b\f\n\r\t \"q\" \\ é 😀 \u2028 <&>"
	s.Instructions = &ins
	s.Command = append(s.Command, ins)
	s.SupportedVersions = []string{s.ProtocolVersion}
	if err := NewServer(s); err != nil {
		t.Fatal(err)
	}
	checkSurfaceComposition(t, s)
}

var smallNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?$`)

func FuzzCanonical(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Canonical(data)
		if err != nil {
			return
		}
		// Idempotent, and independent of formatting.
		if c2, err := Canonical(c); err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("not idempotent: %s -> %s (%v)", c, c2, err)
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, data, "", "\t"); err == nil {
			if ci, err := Canonical(ind.Bytes()); err != nil || !bytes.Equal(c, ci) {
				t.Fatalf("indentation changed the canonical form")
			}
		}
		// Same value as the input (JCS refuses duplicate keys, so maps compare).
		var a, b any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal(c, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("canonical form has another value: %s -> %s", data, c)
		}
		// Our own string encoder (used for the surface) agrees with JCS.
		if s, ok := a.(string); ok {
			if got := jcsString(nil, s); !bytes.Equal(got, c) {
				t.Fatalf("jcsString %s, JCS %s", got, c)
			}
		}
		// The number rule: an accepted literal has exactly the value written.
		lit := string(bytes.TrimSpace(data))
		if smallNumber.MatchString(lit) {
			err := checkNumber(lit)
			x, ok1 := new(big.Rat).SetString(lit)
			y, ok2 := new(big.Rat).SetString(string(c))
			if !ok1 || !ok2 {
				t.Fatalf("big.Rat cannot read %q or %q", lit, c)
			}
			if same := x.Cmp(y) == 0; same != (err == nil) {
				t.Fatalf("checkNumber(%s) = %v, but value kept = %v (canonical %s)", lit, err, same, c)
			}
		}
		// Any tool NewServer accepts survives Marshal and Parse with the
		// same digest (raw items are re-indented, never re-encoded).
		s := &Server{Command: []string{"x"}, ProtocolVersion: "2025-11-25",
			ServerInfo: json.RawMessage(`{}`), Capabilities: json.RawMessage(`{}`),
			Tools: []json.RawMessage{bytes.Clone(data)}}
		if NewServer(s) != nil {
			return
		}
		out, err := Marshal(&File{Servers: map[string]*Server{"s": s}})
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, err := Parse("fuzz.lock", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(NewServer(tool))): %v\n%s", err, out)
		}
		if got := back.Servers["s"].Digests; got.Surface != s.Digests.Surface || !reflect.DeepEqual(got.Tools, s.Digests.Tools) {
			t.Fatal("digests changed through Marshal and Parse")
		}
	})
}
