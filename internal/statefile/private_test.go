//go:build unix

package statefile

import (
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkdirPrivateRefusesSharedFolders: a state folder others may write (a
// $XDG_STATE_HOME on a shared path another user made first) is refused: who
// can write it can delete a session's taint file, untainting the session,
// or plant files mcpsum reads. A folder under a world-writable parent
// without the sticky bit is refused too (another user could rename ours
// away and put theirs in its place).
func TestMkdirPrivateRefusesSharedFolders(t *testing.T) {
	base := t.TempDir()

	open := filepath.Join(base, "open", "mcpsum")
	os.MkdirAll(open, 0o700)
	os.Chmod(open, 0o777)
	err := MkdirPrivate(open)
	if err == nil || !strings.Contains(err.Error(), "others can write it") || !strings.Contains(hint.Lines(err, ""), "\nhint: make it private: chmod go-w "+open) {
		t.Fatalf("MkdirPrivate(0777 folder) = %v", err)
	}

	shared := filepath.Join(base, "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777)
	err = MkdirPrivate(filepath.Join(shared, "mcpsum"))
	if err == nil || !strings.Contains(err.Error(), "its parent "+shared+" can be written by others") {
		t.Fatalf("MkdirPrivate(under a 0777 parent) = %v", err)
	}

	sticky := filepath.Join(base, "sticky")
	os.Mkdir(sticky, 0o700)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	if err := MkdirPrivate(filepath.Join(sticky, "mcpsum")); err != nil {
		t.Fatalf("under a sticky parent like /tmp: %v", err)
	}
	mine := filepath.Join(base, "home", ".local", "state", "mcpsum")
	if err := MkdirPrivate(mine); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new state folder mode %v", fi.Mode())
	}
}
