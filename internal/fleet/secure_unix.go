//go:build unix

package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// secureDir checks that nobody but root and the caller can change what is
// in dir: dir and every folder above it belong to root or the caller, and
// none is writable by group or others (a world-writable folder with the
// sticky bit, such as /tmp, is fine above dir: others cannot rename what is
// ours in it). The trust file and the installed lock live in dir; whoever
// could write there could install their own trust. Gemini CLI holds its
// system settings to the same rule.
func secureDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	uid := uint32(os.Getuid())
	for p, first := real, true; ; first = false {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && sys.Uid != uid {
			return fmt.Errorf("%s belongs to user id %d, neither root nor you: whoever owns it could replace the org lock and its trust file", quote(p), sys.Uid)
		}
		mode := st.Mode()
		if mode.Perm()&0o022 != 0 && (first || mode&os.ModeSticky == 0) {
			return fmt.Errorf("%s is writable by group or others (mode %v), so another user could replace the org lock or its trust file; run 'chmod go-w %s'", quote(p), mode, quote(p))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// secureFile checks a file mcpsum reads as the organisation's word (the
// trust file) or is about to replace (an installed lock): a regular file,
// not a symbolic link, owned by root or the caller, writable by its owner
// alone. A missing file is fine (fs.ErrNotExist is returned for the caller
// to decide).
func secureFile(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; the fleet's files must be the files themselves", quote(path))
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", quote(path))
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && sys.Uid != uint32(os.Getuid()) {
		return fmt.Errorf("%s belongs to user id %d, neither root nor you", quote(path), sys.Uid)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %v); run 'chmod go-w %s'", quote(path), st.Mode(), quote(path))
	}
	return nil
}

// missing reports whether err says a file does not exist.
func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
