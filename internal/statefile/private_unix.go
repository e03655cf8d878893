//go:build unix

package statefile

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"os"
	"path/filepath"
	"syscall"
)

// checkPrivate refuses a state folder another user controls.
func checkPrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return fmt.Errorf("state folder %s is not a folder", dir)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return hint.Errorf("set XDG_STATE_HOME to a folder of yours", "state folder %s belongs to user %d, not to you (%d): another user made it", dir, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return hint.Errorf("make it private: chmod go-w "+termtext.ShellArg(dir),
			"state folder %s has mode %v: others can write it (and so untaint a session or plant files mcpsum reads)", dir, fi.Mode().Perm())
	}
	parent := filepath.Dir(dir)
	pi, err := os.Stat(parent)
	if err != nil {
		return err
	}
	if pi.Mode().Perm()&0o002 != 0 && pi.Mode()&os.ModeSticky == 0 {
		return hint.Errorf("set XDG_STATE_HOME to a folder of yours",
			"state folder %s: its parent %s can be written by others and has no sticky bit, so another user can swap the folder", dir, parent)
	}
	return nil
}
