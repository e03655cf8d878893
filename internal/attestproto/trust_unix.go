//go:build unix

package attestproto

import (
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"syscall"
)

// Trusted refuses an mcpsum-attest that another user could have
// replaced: the helper decides whether a signature is good, so a file (or
// a folder holding it) that others may write, or a file owned by another
// user than the caller or root, would let them forge that verdict (the same
// rule as ssh's StrictModes, for world-writable and foreign-owned).
func Trusted(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	uid := uint32(os.Getuid())
	// The folder the helper was found in counts too: when the helper is a
	// symlink, whoever can write that folder can swap the link.
	for _, p := range []string{real, filepath.Dir(real), filepath.Dir(path)} {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		mode := st.Mode()
		if mode.Perm()&0o002 != 0 && !(mode.IsDir() && mode&os.ModeSticky != 0) {
			return hint.Errorf("run 'chmod o-w "+quoteArg(p)+"', or reinstall it", "%s is writable by every user (mode %v), so anyone could replace the helper", quoteArg(p), mode)
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && p == real && sys.Uid != uid && sys.Uid != 0 {
			return hint.Errorf("install the helper yourself", "%s belongs to user id %d, neither you nor root", quoteArg(p), sys.Uid)
		}
	}
	return nil
}
