package sandbox

import (
	"os"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
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
	// Runtime folders and temp files of this run stay in the isolated
	// TMPDIR (testbin.Run); TestUnprivileged's copy for uid 1000 goes to
	// the real one, which every user can enter.
	origTmp = os.TempDir()
	os.Exit(testbin.Run(m, func() error { return os.Unsetenv("XDG_RUNTIME_DIR") }))
}
