package sandbox

import (
	"fmt"
	"os"
	"testing"
)

// TestMain wires the sandbox's hidden stage the way cmd/mcpsum/main.go does,
// and the helper programs the tests run inside sandboxes (this binary again).
func TestMain(m *testing.M) {
	if handled, code := Helper(os.Args[1:]); handled {
		os.Exit(code)
	}
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case probeArg:
			os.Exit(runProbeProgram())
		case parentArg:
			os.Exit(runParentProgram())
		}
	}
	// Keep runtime folders and temp files of this run in one place.
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
