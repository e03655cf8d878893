//go:build unix

package statefile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
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
	if err == nil || !strings.Contains(err.Error(), "is writable by others") || !strings.Contains(hint.Lines(err, ""), "\nhint: fix it: chmod 700 "+open) {
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

// The state and config folders themselves are checked, not only the
// folder being made in them: a private taint/ inside a state folder its
// group may write (before: used silently; its group could rename taint/
// away), or a lockfile in a config folder others may write (they could
// replace it with one that runs their command), is refused with the
// chmod that fixes it; after running it, both pass. Folders of another
// user are refused too.
func TestCheckOwnCoversMcpsumsFolders(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	state, _ := Dir()
	config, _ := ConfigDir()
	taint := filepath.Join(state, "taint")
	if err := MkdirPrivate(taint); err != nil {
		t.Fatal(err)
	}
	os.Chmod(state, 0o770)
	err := MkdirPrivate(taint)
	if err == nil || !strings.Contains(err.Error(), "mcpsum's state folder "+state+" is writable by its group") {
		t.Fatalf("a state folder its group may write: %v", err)
	}
	runFix(t, err)
	if err := MkdirPrivate(taint); err != nil {
		t.Fatalf("after the fix: %v", err)
	}

	lock := filepath.Join(config, "mcp.lock")
	if err := CheckOwn(lock); err != nil {
		t.Fatalf("no config folder yet: %v", err)
	}
	os.MkdirAll(config, 0o700)
	os.Chmod(config, 0o777)
	err = CheckOwn(lock)
	if err == nil || !strings.Contains(err.Error(), "mcpsum's config folder "+config+" is writable by others") {
		t.Fatalf("a config folder others may write: %v", err)
	}
	runFix(t, err)
	if err := CheckOwn(lock); err != nil {
		t.Fatalf("after the fix: %v", err)
	}
	if err := CheckOwn(filepath.Join(base, "elsewhere", "mcp.lock")); err != nil {
		t.Fatalf("a path outside mcpsum's folders: %v", err)
	}

	if os.Geteuid() != 0 {
		t.Skip("changing a folder's owner needs root")
	}
	if err := os.Chown(config, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	err = CheckOwn(lock)
	if err == nil || !strings.Contains(err.Error(), "belongs to user 4321, not to you (0)") || !strings.Contains(hint.Lines(err, ""), "\nhint: move it away and let mcpsum make its own, or set XDG_CONFIG_HOME to a folder of yours") {
		t.Fatalf("a config folder of another user: %v", err)
	}
}

// runFix runs the command err's hint names ("fix it: ...").
func runFix(t *testing.T, err error) {
	t.Helper()
	_, fix, ok := strings.Cut(strings.Join(hint.Of(err), "\n"), "fix it: ")
	if !ok {
		t.Fatalf("no command to run in: %v", err)
	}
	if out, err := exec.Command("sh", "-c", fix).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", fix, err, out)
	}
}
