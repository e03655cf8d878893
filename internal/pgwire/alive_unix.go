//go:build unix

package pgwire

import (
	"net"
	"syscall"
)

// readable reports whether the socket under nc has bytes or its end (a
// peek that does not wait and consumes nothing); false when it has
// nothing, or when nc is no socket.
func readable(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var rerr error
	var buf [1]byte
	if err := rc.Read(func(fd uintptr) bool {
		_, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	}); err != nil {
		return true
	}
	return rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK
}
