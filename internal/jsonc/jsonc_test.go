package jsonc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// toAny converts a parsed tree into what encoding/json would decode (the
// last duplicate key wins, as in encoding/json and JSON.parse).
func toAny(t testing.TB, src []byte, v *Value) any {
	switch v.Kind {
	case Object:
		m := map[string]any{}
		for _, mem := range v.Members {
			m[mem.Key] = toAny(t, src, mem.Value)
		}
		return m
	case Array:
		a := []any{}
		for _, e := range v.Elems {
			a = append(a, toAny(t, src, e))
		}
		return a
	case String:
		return v.Str
	case Number:
		return json.Number(src[v.Start:v.End])
	case Bool:
		return string(src[v.Start:v.End]) == "true"
	}
	return nil
}

// On plain JSON the tree equals encoding/json's reading and every span is
// exactly a value encoding/json accepts on its own.
func check(t testing.TB, src []byte) {
	v, err := Parse(src)
	valid := json.Valid(src) && utf8.Valid(src) && len(bytes.TrimSpace(src)) > 0 // invalid UTF-8 is refused on purpose
	if valid && err != nil {
		t.Fatalf("Parse(%q) rejected valid JSON: %v", src, err)
	}
	if err != nil {
		return
	}
	var walk func(*Value)
	walk = func(v *Value) {
		if v.Kind != Object && v.Kind != Array && !json.Valid(src[v.Start:v.End]) {
			t.Fatalf("span %q of %q is not a JSON value", src[v.Start:v.End], src)
		}
		for _, m := range v.Members {
			if !json.Valid(src[m.KeyStart:m.KeyEnd]) {
				t.Fatalf("key span %q", src[m.KeyStart:m.KeyEnd])
			}
			walk(m.Value)
		}
		for _, e := range v.Elems {
			walk(e)
		}
	}
	walk(v)
	if valid {
		var want any
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if got := toAny(t, src, v); !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q) = %#v, encoding/json reads %#v", src, got, want)
		}
	}
	// No edits: the same bytes.
	out, err := Apply(src, nil)
	if err != nil || !bytes.Equal(out, src) {
		t.Fatalf("Apply(nil) changed the input")
	}
}

var seeds = []string{
	`{}`, `[]`, `{"a":1}`, `{"a": [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"]}`,
	`{"a":{"b":{"c":[]}}}`, `"s"`, `123`, `{"dup":1,"dup":2}`,
	"// c\n{\"a\": /* x */ 1, /* y */}\n// end",
	`{"a": [1, 2,],}`, "\ufeff{}", `{"a": "/* not a comment */", "b": "// nor this"}`,
	`{"a" 1}`, `{"a": tru}`, `{"a": 01}`, `[1,,2]`, `{,}`, `/* open`, "{\"a\": \"x\ny\"}",
	`{"a": truex}`, `{"a": "\ud800"}`,
}

func TestParseSeeds(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { check(t, src) })
}

func TestJSONCExtras(t *testing.T) {
	src := []byte("\ufeff/* a */ { // b\n \"k\" /* c */ : /* d */ [1, /* e */ 2, ] , } // f")
	v, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	k, n := v.Get("k")
	if n != 1 || len(k.Elems) != 2 || string(src[k.Start:k.End]) != "[1, /* e */ 2, ]" {
		t.Fatalf("got %+v", k)
	}
	for src, want := range map[string]string{
		"{\n  \"a\": 1\n  \"b\": 2}": "line 3, column 3: unexpected '\"', want , or } after the value of \"a\"",
		"":                           "no JSON value",
		"[1] [2]":                    "after the top-level value",
		"{\"a\": /* open":            "unterminated /* comment",
		strings.Repeat("[", 2000):    "nesting deeper than 1000",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%.20q) = %v, want %q", src, err, want)
		}
	}
}

func TestApply(t *testing.T) {
	src := []byte("0123456789")
	out, err := Apply(src, []Edit{{7, 8, "X"}, {1, 3, ""}, {5, 5, "+"}})
	if err != nil || string(out) != "034+56X89" {
		t.Fatalf("Apply = %q, %v", out, err)
	}
	if _, err := Apply(src, []Edit{{1, 4, "a"}, {3, 5, "b"}}); err == nil {
		t.Fatal("overlapping edits accepted")
	}
	src = []byte("ab\ncd\n\nef")
	lines := NewLines(src)
	for off := 0; off <= len(src); off++ {
		line, _ := Position(src, off)
		if got := lines.Line(off); got != line {
			t.Fatalf("Lines.Line(%d) = %d, Position says %d", off, got, line)
		}
	}
	if line, col := Position(src, 4); line != 2 || col != 2 {
		t.Fatalf("Position = %d:%d", line, col)
	}
}
