package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSkipString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // -1: error
	}{
		{`"" x`, 2},
		{`"a\"b" x`, 6},
		{`"a\\" x`, 5},
		{`"a\\\"" x`, 7},
		{`"\\\\"`, 6},
		{`"\"`, -1},
		{`"abc`, -1},
		{`x"a"`, -1},
		{``, -1},
	} {
		got, err := SkipString([]byte(tc.in), 0)
		if tc.want < 0 {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("SkipString(%q) = %d, %v; want ErrSyntax", tc.in, got, err)
			}
		} else if err != nil || got != tc.want {
			t.Errorf("SkipString(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestSkipValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // -1: error
	}{
		{`-1.5e+3,`, 7},
		{`true]`, 4},
		{`null}`, 4},
		{`{"a":"}]"} `, 10},
		{`[1,[2,{"b":"\""}]] `, 18},
		{`x`, -1},    // not the start of any value
		{`,`, -1},    // nothing there
		{`[1,2`, -1}, // unterminated
		{`{"a":"}`, -1},
		{`1"x"`, 1}, // stops at the stray quote; Members then refuses it
	} {
		got, err := SkipValue([]byte(tc.in), 0)
		if tc.want < 0 {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("SkipValue(%q) = %d, %v; want ErrSyntax", tc.in, got, err)
			}
		} else if err != nil || got != tc.want {
			t.Errorf("SkipValue(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"n\u0061me"`, "name"},
		{`"é"`, "é"},
		{"\"\xff\"", "\ufffd"}, // what encoding/json reads
	} {
		if got, err := Unquote([]byte(tc.in)); err != nil || got != tc.want {
			t.Errorf("Unquote(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{``, `"`, `x`, `"\x"`, "\"\x01\""} {
		if _, err := Unquote([]byte(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Unquote(%q): %v, want ErrSyntax", in, err)
		}
	}
}

func TestMembersStops(t *testing.T) {
	b := []byte(`{"a":1,"b":2}`)
	stop := errors.New("stop")
	var keys []string
	_, err := Members(b, 0, func(key string, _, _, _ int) error {
		keys = append(keys, key)
		return stop
	})
	if err != stop || len(keys) != 1 {
		t.Errorf("got %v, %v; want the callback's error after one key", keys, err)
	}
	for _, in := range []string{`{"a":1"x"}`, `{"a" 1}`, `{"a":1,}`, `{a:1}`, `{"a":1`, `[]`} {
		if _, err := Members([]byte(in), 0, func(string, int, int, int) error { return nil }); !errors.Is(err, ErrSyntax) {
			t.Errorf("Members(%s): %v, want ErrSyntax", in, err)
		}
	}
}

// FuzzScanner checks that Members and Elements agree with encoding/json on
// valid JSON (keys, values, key positions and the end) and never panic on
// anything else. Its corpus is in testdata/fuzz/FuzzScanner.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":1,"b":[1,{"c":"}"}],"a":2}`, `[1, "x\"]", {"k":[]} ,null]`,
		`{"n\u0061me":"x"}`, `{"s":"\\"}`, `{"a":"\\\""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		i := SkipWS(b, 0)
		var elems [][]byte
		aend, aerr := Elements(b, i, func(s, e int) error { elems = append(elems, b[s:e]); return nil })
		names := map[string][]byte{}
		mend, merr := Members(b, i, func(key string, ks, s, e int) error {
			if k, err := SkipString(b, ks); err != nil || !bytes.Contains(b[k:s], []byte(":")) {
				t.Fatalf("key %q at %d does not end before its value at %d", key, ks, s)
			}
			names[key] = b[s:e]
			return nil
		})
		if !json.Valid(b) {
			return
		}
		end := len(bytes.TrimRight(b, " \t\r\n"))
		var wantElems []json.RawMessage
		if json.Unmarshal(b, &wantElems) == nil && wantElems != nil {
			if aerr != nil || aend != end || len(elems) != len(wantElems) {
				t.Fatalf("Elements: %d elems, end %d, err %v; want %d, end %d", len(elems), aend, aerr, len(wantElems), end)
			}
			for i := range elems {
				if !bytes.Equal(elems[i], wantElems[i]) {
					t.Fatalf("elem %d: %s vs %s", i, elems[i], wantElems[i])
				}
			}
		}
		var wantMembers map[string]json.RawMessage
		if json.Unmarshal(b, &wantMembers) == nil && wantMembers != nil {
			if merr != nil || mend != end || len(names) != len(wantMembers) {
				t.Fatalf("Members: %d names, end %d, err %v; want %d, end %d", len(names), mend, merr, len(wantMembers), end)
			}
			for k, v := range wantMembers {
				if !bytes.Equal(names[k], v) {
					t.Fatalf("member %q: %s vs %s", k, names[k], v)
				}
			}
		}
	})
}

func TestFieldsExactAndUnique(t *testing.T) {
	f, err := Fields([]byte(` {"Resul":1,"result":2,"r\u0065sult2":3} `), "result", "result2", "absent")
	if err != nil || string(f[0]) != "2" || string(f[1]) != "3" || f[2] != nil {
		t.Fatalf("Fields: %q, %v", f, err)
	}
	var dup *DuplicateError
	for _, in := range []string{`{"a":1,"a":2}`, `{"x":1,"b":{},"\u0078":3}`} {
		if _, err := Fields([]byte(in), "a"); !errors.As(err, &dup) {
			t.Errorf("Fields(%s): %v, want a duplicate error", in, err)
		}
	}
	for _, in := range []string{`[]`, `{"a":1} x`, ``} {
		if _, err := Fields([]byte(in), "a"); err == nil {
			t.Errorf("Fields(%s): no error", in)
		}
	}
	if s, ok := Strings([]byte(`["a","b\u0021"]`)); !ok || len(s) != 2 || s[1] != "b!" {
		t.Errorf("Strings: %q %v", s, ok)
	}
	if _, ok := Strings([]byte(`["a",1]`)); ok {
		t.Error("Strings accepted a number")
	}
}

func TestExactKeyRule(t *testing.T) {
	var twin *TwinError
	var dup *DuplicateError
	for _, tc := range []struct {
		in   string
		twin bool // else a duplicate
	}{
		{`{"name":"echo","Name":"add"}`, true},
		{`{"NAME":"add"}`, true},                    // a variant alone: the peer reads it as name
		{`{"n\u0041me":"add","name":"echo"}`, true}, // escaped
		{"{\"name\":\"echo\",\"\u212Aind\":1}", false},
		{`{"name":"a","x":1,"x":2}`, false}, // any duplicate, not only named ones
	} {
		_, err := Fields([]byte(tc.in), "name", "kind")
		switch {
		case tc.in == "{\"name\":\"echo\",\"\u212Aind\":1}":
			// the Kelvin sign folds to K: "Kind" to encoding/json
			if !errors.As(err, &twin) || twin.Of != "kind" {
				t.Errorf("Fields(%s): %v, want a twin of kind", tc.in, err)
			}
		case tc.twin:
			if !errors.As(err, &twin) || twin.Of != "name" {
				t.Errorf("Fields(%s): %v, want a twin of name", tc.in, err)
			}
		default:
			if !errors.As(err, &dup) {
				t.Errorf("Fields(%s): %v, want a duplicate", tc.in, err)
			}
		}
	}
	if f, err := Fields([]byte(`{"name":"a","names":1,"Other":2}`), "name"); err != nil || string(f[0]) != `"a"` {
		t.Errorf("Fields refused a clean object: %v", err)
	}
}

func TestFoldUnique(t *testing.T) {
	for _, in := range []string{
		`{"to":"a","To":"b"}`,
		`{"to":"a","to":"b"}`,
		`{"x":[{"id":1},{"id":2,"ID":3}]}`,
		"{\"s\":1,\"\u017f\":2}", // the long s folds to S
	} {
		if err := FoldUnique([]byte(in)); err == nil {
			t.Errorf("FoldUnique(%s): no error", in)
		}
	}
	for _, in := range []string{`{"to":"a","top":"b","x":{"to":1}}`, `[{"a":1},{"a":2}]`, `"x"`, `12`} {
		if err := FoldUnique([]byte(in)); err != nil {
			t.Errorf("FoldUnique(%s): %v", in, err)
		}
	}
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	if err := FoldUnique([]byte(deep)); err == nil {
		t.Error("FoldUnique walked 300 levels")
	}
}

func TestFoldMatchesEncodingJSON(t *testing.T) {
	// What encoding/json decodes into a field tagged "kind" is what Fold
	// equates with "kind".
	for _, k := range []string{"kind", "KIND", "Kind", "\u212Aind", "kınd", "kinds"} {
		var v struct {
			Kind int `json:"kind"`
		}
		json.Unmarshal([]byte(`{"`+k+`":1}`), &v)
		if got, want := v.Kind == 1, Fold(k) == Fold("kind"); got != want {
			t.Errorf("%q: encoding/json matched %v, Fold says %v", k, got, want)
		}
	}
}
