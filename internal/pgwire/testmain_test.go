package pgwire

import (
	"os"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestMain runs the tests with a HOME, XDG folders and TMPDIR of their own
// (testbin.Run), never the real user's.
func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }
