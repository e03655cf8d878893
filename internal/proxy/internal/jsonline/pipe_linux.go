package jsonline

import (
	"os"

	"golang.org/x/sys/unix"
)

// GrowPipe makes the pipe f (either end) hold at least size bytes if the
// kernel lets it, and reports whether it does. It never shrinks a pipe
// and does nothing to a file that is not a pipe. A long line then moves
// in fewer, larger reads and writes: each end wakes a quarter as often
// per megabyte at 256 KiB as at the default 64 KiB, and on two shared
// cores the wake-ups, not the copies, are what a streamed result costs
// beyond the check (docs/performance.md). Unprivileged processes may go up
// to /proc/sys/fs/pipe-max-size (1 MiB by default); a refusal (a user over
// pipe-user-pages-soft, a lower maximum) leaves the pipe as it was.
func GrowPipe(f *os.File, size int) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		cur, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		if err != nil { // not a pipe
			return
		}
		if cur >= size {
			ok = true
			return
		}
		_, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size)
		ok = err == nil
	})
	return ok
}
