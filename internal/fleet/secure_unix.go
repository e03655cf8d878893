//go:build unix

package fleet

import (
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
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
	uid := uint32(os.Getuid())
	if err := secureLinks(abs, uid); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
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
			return hint.Errorf("run 'chmod go-w "+quote(p)+"'", "%s is writable by group or others (mode %v), so another user could replace the org lock or its trust file", quote(p), mode)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// secureLinks checks the symbolic links on the way to dir as written (the
// walk in secureDir sees only where they lead): each must belong to root or
// the caller and be in a folder no one else can change (or one with the
// sticky bit), or it could be pointed elsewhere between a check and a write.
func secureLinks(dir string, uid uint32) error {
	for p := dir; ; {
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && sys.Uid != uid {
				return fmt.Errorf("the symbolic link %s belongs to user id %d, neither root nor you: whoever owns it could point it elsewhere", quote(p), sys.Uid)
			}
			pst, err := os.Stat(parent)
			if err != nil {
				return err
			}
			if pst.Mode().Perm()&0o022 != 0 && pst.Mode()&os.ModeSticky == 0 {
				return fmt.Errorf("the symbolic link %s is in %s, which is writable by group or others (mode %v): another user could point it elsewhere", quote(p), quote(parent), pst.Mode())
			}
		}
		p = parent
	}
}

// securePath checks a file a policy names by its path (the mcpsum binary,
// the org lock): the links on the way to it, the folder it really is in
// and the file itself, as secureDir and secureFile do. A file that is not
// there is fine when no one else can create it (its folder is checked).
func securePath(p string) error {
	if _, err := os.Lstat(p); missing(err) {
		return secureDir(filepath.Dir(p))
	}
	if err := secureLinks(p, uint32(os.Getuid())); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	if err := secureDir(filepath.Dir(real)); err != nil {
		return err
	}
	return secureFile(real)
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
		return hint.Errorf("run 'chmod go-w "+quote(path)+"'", "%s is writable by group or others (mode %v)", quote(path), st.Mode())
	}
	return nil
}

// missing reports whether err says a file does not exist.
func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
