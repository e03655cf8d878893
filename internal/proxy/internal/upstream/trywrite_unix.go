//go:build unix

package upstream

import (
	"io"
	"syscall"
)

// tryWriter returns a write that never blocks for w when w is a file whose
// descriptor can be written so (a pipe: os.Pipe's are non-blocking, the
// runtime's poller waits for them): it writes what the pipe takes now and
// returns how much that was (0 when the pipe is full or the write failed;
// the writer goroutine then writes the rest, and meets any error itself).
// nil for any other writer.
func tryWriter(w io.Writer) func([]byte) int {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	nonblocking := false
	rc.Control(func(fd uintptr) {
		fl, err := fcntl(fd)
		nonblocking = err == nil && fl&syscall.O_NONBLOCK != 0
	})
	if !nonblocking { // a write could wait: leave it to the writer goroutine
		return nil
	}
	return func(b []byte) int {
		done := 0
		rc.Write(func(fd uintptr) bool {
			for done < len(b) {
				n, err := syscall.Write(int(fd), b[done:])
				if err == syscall.EINTR {
					continue
				}
				if err != nil || n <= 0 {
					break
				}
				done += n
			}
			return true // never wait for the poller: what is left is queued
		})
		return done
	}
}

func fcntl(fd uintptr) (int, error) {
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(fl), nil
}
