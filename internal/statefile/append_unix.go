//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"syscall"
)

// OpenAppend opens path for appending (every write goes to the end, one
// write(2) per call), creating it with mode 0600. It is how every
// append-only state file is opened (audit and access logs): a symbolic
// link at path is refused without following it (O_NOFOLLOW: its target is
// neither created nor written), and so is anything but a regular file (a
// FIFO or device: O_NONBLOCK keeps the open from waiting on one) and a file
// another user owns. An existing file keeps its mode.
func OpenAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, hint.Errorf("name the file itself", "%s is a symbolic link: refusing to write through it", path)
	}
	if err != nil {
		return nil, err
	}
	if err := checkAppendable(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// OpenTruncate opens path for writing from its start (an output file mcpsum
// rewrites each time, such as an npx install's log), creating it with mode
// 0600. It refuses what OpenAppend refuses, the same way: a symbolic link at
// path (O_NOFOLLOW: its target is neither created, truncated nor written),
// anything but a regular file, another user's file. The file is emptied
// only after those checks.
func OpenTruncate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, hint.Errorf("remove the link (mcpsum writes this file itself)", "%s is a symbolic link: refusing to write through it", path)
	}
	if err != nil {
		return nil, err
	}
	if err := checkAppendable(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// checkAppendable refuses an opened file that is not a regular file of ours
// (OpenAppend, OpenTruncate).
func checkAppendable(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%v): refusing to write to it", fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("cannot read the file's owner")
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("belongs to user %d, not to you (%d): refusing to write to it", st.Uid, uid)
	}
	return nil
}
