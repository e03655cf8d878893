package statefile

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
)

// Dir is mcpsum's state directory: $XDG_STATE_HOME/mcpsum when
// XDG_STATE_HOME is an absolute path, else ~/.local/state/mcpsum. It holds the
// egress and taint audit logs and the taint state; no sandbox write path may
// cover it.
func Dir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mcpsum"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", hint.Errorf("set XDG_STATE_HOME", "find the state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "mcpsum"), nil
}

// MkdirPrivate creates dir (and its parents) with mode 0700 if it does not
// exist. An existing directory is left as it is, but one that is not this
// user's, that others can write, or whose parent others can write without
// the sticky bit is refused (checkPrivate): who can write there can delete
// a session's taint state or plant what mcpsum reads.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return checkPrivate(dir)
}
