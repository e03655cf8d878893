//go:build unix

package jsonline

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// readerGone reports whether nobody reads w any more: w is a pipe or a
// socket whose reading end is closed (poll says POLLERR or POLLHUP). A
// client that closed its input may still read its answers; one that closed
// both ends gets none, so the proxy need not wait for them.
func readerGone(w io.Writer) bool {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
		}
	})
	return gone
}
