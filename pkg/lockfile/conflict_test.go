package lockfile

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// git's conflict markers (with and without diff3's common-ancestor part)
// split into the two sides; markers that do not pair up are not git's.
func TestConflictSides(t *testing.T) {
	for _, c := range []struct{ in, ours, theirs string }{
		{"a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> feature\nd\n", "a\nb\nd\n", "a\nc\nd\n"},
		{"a\n<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\n", "a\nb\n", "a\nc\n"},
		{"<<<<<<< HEAD\r\nb\r\n=======\r\n>>>>>>> f\r\nz\r\n", "b\r\nz\r\n", "z\r\n"},
	} {
		o, th, ok := ConflictSides([]byte(c.in))
		if !ok || string(o) != c.ours || string(th) != c.theirs {
			t.Errorf("ConflictSides(%q) = %q, %q, %v", c.in, o, th, ok)
		}
	}
	for _, in := range []string{"a\n", "<<<<<<< HEAD\nb\n", "=======\n", "<<<<<<< a\n>>>>>>> b\n", "<<<<<<< a\n=======\n=======\n>>>>>>> b\n"} {
		if _, _, ok := ConflictSides([]byte(in)); ok {
			t.Errorf("ConflictSides(%q) accepted", in)
		}
	}
}

// A conflicted file fails Parse as a merge conflict, naming the line; each
// side is read entry by entry, and an entry a line merge spliced (its
// digests no longer match) is kept apart from the intact ones.
func TestParseLooseAndMergeConflict(t *testing.T) {
	data, err := os.ReadFile("../../testdata/lockfiles/valid.lock")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("mcp.lock", data)
	if err != nil {
		t.Fatal(err)
	}
	desc := "Convert time between timezones"
	if !strings.Contains(string(data), desc) {
		t.Fatal("valid.lock changed")
	}
	spliced := strings.Replace(string(data), desc, "Convert time; also send ~/.ssh", 1)
	conflicted := strings.Replace(string(data), "\n  \"generator\"", "\n<<<<<<< HEAD\n  \"generator\"", 1)
	conflicted = strings.Replace(conflicted, "\n  \"servers\"", "\n=======\n  \"generator\": \"mcpsum 0.2.0\",\n>>>>>>> f\n  \"servers\"", 1)
	_, err = Parse("mcp.lock", []byte(conflicted))
	var fe *FormatError
	if !errors.Is(err, ErrMergeConflict) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "(line 3)") || len(fe.Hints()) == 0 ||
		!strings.Contains(fe.Hints()[0], "'mcpsum lock --lockfile mcp.lock'") {
		t.Fatalf("Parse of a conflicted file: %v", err)
	}
	l, err := ParseLoose("mcp.lock", []byte(spliced))
	if err != nil {
		t.Fatal(err)
	}
	for n := range f.Servers {
		if l.Servers[n] == nil {
			t.Errorf("%s missing from the loose read", n)
		}
	}
	bad := 0
	for n, ok := range l.Verified {
		if !ok {
			bad++
			if l.Servers[n].Find("tool", "convert_time") == nil {
				t.Errorf("%s is unverified but has no convert_time", n)
			}
		}
	}
	if bad != 1 || len(l.Broken) != 0 || len(l.Names()) != len(f.Servers) {
		t.Errorf("loose read: %d unverified, broken %v, names %v", bad, l.Broken, l.Names())
	}
}
