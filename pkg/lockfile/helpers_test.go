package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as a second writer process (see
// update_test.go) when re-executed with MCPSUM_LOCKFILE_CHILD set.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPSUM_LOCKFILE_CHILD"); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

func testdata(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t testing.TB, name string, data []byte) *File {
	t.Helper()
	f, err := Parse(name, data)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return f
}

// replaceOnce replaces exactly one occurrence of old, failing the test if
// there is not exactly one, so a mutation never silently does nothing.
func replaceOnce(t testing.TB, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("mutation: %q occurs %d times, want 1", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

func asFormat(t testing.TB, err error) *FormatError {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("want *FormatError, got %T: %v", err, err)
	}
	return fe
}

func asIntegrity(t testing.TB, err error) *IntegrityError {
	t.Helper()
	var ie *IntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("want *IntegrityError, got %T: %v", err, err)
	}
	return ie
}

// timeServer is a realistic legacy server surface, as lock would observe it.
func timeServer(t testing.TB) *Server {
	t.Helper()
	f := mustParse(t, "valid.lock", testdata(t, "lockfiles/valid.lock"))
	s := f.Servers["time"]
	s.Policy = nil
	return s
}
