//go:build !linux

package sandbox

import (
	"errors"
	"testing"
)

func runTestProgram(string) (int, bool) { return 0, false }

func TestPrepareUnsupported(t *testing.T) {
	if _, err := Prepare(Config{}, []string{"node", "x.js"}, nil); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Prepare outside Linux: %v, want ErrUnsupported", err)
	}
	if r := Status(); r.Available {
		t.Fatal("Status reports a sandbox outside Linux")
	}
}
