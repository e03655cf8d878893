package sandbox

import (
	"fmt"
	"os"
	"testing"
)

// origTmp is the temporary folder before TestMain replaced TMPDIR.
var origTmp string

// TestMain wires the sandbox's hidden stage the way cmd/mcpsum/main.go does,
// and the helper programs the tests run inside sandboxes (this binary again).
func TestMain(m *testing.M) {
	if handled, code := Helper(os.Args[1:]); handled {
		os.Exit(code)
	}
	if len(os.Args) > 1 {
		if code, ok := runTestProgram(os.Args[1]); ok {
			os.Exit(code)
		}
	}
	// Keep runtime folders and temp files of this run in one place.
	origTmp = os.TempDir()
	dir, err := os.MkdirTemp("", "sbxtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Setenv("TMPDIR", dir)
	os.Unsetenv("XDG_RUNTIME_DIR")
	code := m.Run()
	if err := removeAll(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
