package lockfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

// syntheticServer returns a server with n tools.
func syntheticServer(n int) *Server {
	s := &Server{
		Command:         []string{"npx", "-y", "@example/big@1.0.0"},
		ProtocolVersion: "2025-11-25",
		ServerInfo:      json.RawMessage(`{"name":"big","version":"1.0.0"}`),
		Capabilities:    json.RawMessage(`{"tools":{"listChanged":false}}`),
	}
	for i := 0; i < n; i++ {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(
			`{"name":"tool_%04d","description":"Tool number %d does one thing well and says so at length.",`+
				`"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"A path"},`+
				`"limit":{"type":"integer","minimum":1,"maximum":100,"default":10}},"required":["path"]},`+
				`"annotations":{"readOnlyHint":%t,"openWorldHint":false}}`, i, i, i%2 == 0)))
	}
	return s
}
