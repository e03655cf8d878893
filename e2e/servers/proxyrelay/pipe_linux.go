package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// growPipes grows the pipe to the child's stdout and the relay's own
// stdout to PROXYRELAY_PIPE bytes, if set: the relay with the pipes
// `mcpsum proxy` grows at a long line (jsonline.GrowPipe), so the benchmark
// can tell what the proxy gains from larger pipes from what it costs.
func growPipes(childOut *os.File) {
	n, _ := strconv.Atoi(os.Getenv("PROXYRELAY_PIPE"))
	if n <= 0 {
		return
	}
	for _, f := range []*os.File{childOut, os.Stdout} {
		if rc, err := f.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, n) })
		}
	}
}
