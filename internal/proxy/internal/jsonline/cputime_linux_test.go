package jsonline

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling thread has used so far; the
// caller holds its thread (runtime.LockOSThread). On a loaded machine a
// benchmark's CPU time is a steadier measure than its wall time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
