package e2e

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal pair (Linux's /dev/ptmx): what the user
// types goes into master, the program reads it from slave.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// openPTY is the slave side of a new pseudo-terminal: a terminal for a
// child's stdin.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	_, s := openPty(t)
	return s
}
