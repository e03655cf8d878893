package sumlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sumlog"
)

// A symbolic link planted at the key's name (even one pointing nowhere) is
// refused: init never writes the signing key where a link points.
func TestInitFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "stolen.key")
	if err := os.Symlink(elsewhere, filepath.Join(dir, sumlog.KeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := sumlog.Init(dir, "posix.test/log"); err == nil || !strings.Contains(err.Error(), "already holds a log") {
		t.Fatalf("Init over a dangling link = %v, want a refusal", err)
	}
	if _, err := os.Lstat(elsewhere); err == nil {
		t.Fatal("the signing key was written where the link points")
	}
}
