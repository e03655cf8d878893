package sumlog_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// The log server runs on Linux and macOS; elsewhere it says so, naming the
// platform, before it touches anything.
func TestSupported(t *testing.T) {
	err := sumlog.Supported()
	switch runtime.GOOS {
	case "linux", "darwin":
		if err != nil {
			t.Fatalf("Supported on %s: %v", runtime.GOOS, err)
		}
	default:
		if !errors.Is(err, sumlog.ErrUnsupported) || !strings.Contains(err.Error(), "not supported on "+runtime.GOOS) {
			t.Fatalf("Supported on %s: %v, want ErrUnsupported naming the platform", runtime.GOOS, err)
		}
	}
}
