//go:build unix

package fileperm

import (
	"os"
	"syscall"
)

// Check refuses path (followed if a link) when someone other than the user
// could change it under r: an *Error saying who and the command that fixes
// it. A path that cannot be read is the os error.
func Check(path string, r Rule) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return CheckInfo(path, fi, r)
}

// CheckInfo is Check of what os.Stat said about path.
func CheckInfo(path string, fi os.FileInfo, r Rule) error {
	mode := fi.Mode()
	me := os.Geteuid()
	e := &Error{Path: path, Rule: r, Mode: mode, Me: me, Owner: -1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Owner = int(st.Uid)
	}
	switch {
	case r.Private && e.Owner != me, r.Owned && e.Owner != me && e.Owner != 0:
		e.Foreign = true
		return e
	case r.Private && mode.Perm()&0o022 != 0:
		return e
	case !r.Private && mode.Perm()&0o002 != 0 && !(mode.IsDir() && mode&os.ModeSticky != 0):
		return e
	}
	return nil
}
