package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/fileperm"
	"github.com/mcpsum/mcpsum/internal/hint"
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

// ConfigDir is mcpsum's config folder: $XDG_CONFIG_HOME/mcpsum when
// XDG_CONFIG_HOME is set, else ~/.config/mcpsum. import keeps the lock of
// the user's own client configs there (mcp.lock), which the proxy then
// runs servers from.
func ConfigDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Abs(filepath.Join(d, "mcpsum"))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", hint.Errorf("set XDG_CONFIG_HOME", "find the config folder: %w", err)
	}
	return filepath.Join(home, ".config", "mcpsum"), nil
}

// MkdirPrivate creates dir (and its parents) with mode 0700 if it does not
// exist. An existing directory is left as it is, but one that is not this
// user's, that its group or others can write, or whose parent others can
// write without the sticky bit is refused (CheckOwn): who can write there
// can delete a session's taint state or plant what mcpsum reads. Inside
// the state or config folder, every folder from that one down to dir is
// checked.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if checked, err := checkOwn(dir, true); checked || err != nil {
		return err
	}
	return checkPrivate(dir, stateRule)
}

// CheckOwn refuses path, a file or folder inside mcpsum's state folder
// (Dir) or config folder (ConfigDir), when someone other than the user
// could change it: that folder, or one between it and path, is another
// user's or writable by its group or others (the error names it and the
// command that fixes it as a hint: chmod 700 …), or that folder's parent is writable
// by others without the sticky bit. Folders that do not exist yet, and a
// path outside both folders, pass.
func CheckOwn(path string) error {
	_, err := checkOwn(path, false)
	return err
}

// checkOwn is CheckOwn; isDir says path is itself a folder to check.
// checked reports whether path was inside one of mcpsum's folders.
func checkOwn(path string, isDir bool) (checked bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	for _, top := range []struct {
		dir  func() (string, error)
		rule fileperm.Rule
	}{{Dir, stateRule}, {ConfigDir, configRule}} {
		root, err := top.dir()
		if err != nil {
			continue
		}
		last := abs
		if !isDir {
			last = filepath.Dir(abs)
		}
		rel, err := filepath.Rel(root, last)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if err := checkPrivate(root, top.rule); err != nil {
			return true, ignoreMissing(err)
		}
		d := root
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if part == "." {
				continue
			}
			d = filepath.Join(d, part)
			if err := fileperm.Check(d, top.rule); err != nil {
				return true, ignoreMissing(err)
			}
		}
		return true, nil
	}
	return false, nil
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

var (
	stateRule = fileperm.Rule{What: "mcpsum's state folder", Private: true,
		Threat:    "untaint a session, or plant or remove files mcpsum reads",
		Elsewhere: "move it away and let mcpsum make its own, or set XDG_STATE_HOME to a folder of yours"}
	configRule = fileperm.Rule{What: "mcpsum's config folder", Private: true,
		Threat:    "replace the lockfile the proxy runs servers from",
		Elsewhere: "move it away and let mcpsum make its own, or set XDG_CONFIG_HOME to a folder of yours"}
)

// checkPrivate refuses the folder dir under r (fileperm), or when others
// can write its parent without the sticky bit (they could swap dir).
func checkPrivate(dir string, r fileperm.Rule) error {
	if err := fileperm.Check(dir, r); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	pi, err := os.Stat(parent)
	if err != nil {
		return err
	}
	if pi.Mode().Perm()&0o002 != 0 && pi.Mode()&os.ModeSticky == 0 {
		return hint.Errorf(r.Elsewhere, "%s %s: its parent %s can be written by others and has no sticky bit, so another user can swap the folder", r.What, dir, parent)
	}
	return nil
}
