package mcpwire

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

func setPdeathsig(a *syscall.SysProcAttr) {
	// If mcpsum itself dies (even by SIGKILL), the kernel kills the child.
	// Caveat (Linux): the signal fires when the OS thread that started the child
	// exits, which the Go runtime only does for a goroutine that exits while
	// locked to its thread (runtime.LockOSThread); do not Start from such a one.
	if a.Pdeathsig == 0 {
		a.Pdeathsig = syscall.SIGKILL
	}
}

// groupAlive reports whether process group pgid has a member that is not a
// zombie. kill(-pgid, 0) alone also counts zombies, which a container's init
// may never reap, so /proc is consulted when the kill probe says "exists".
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid && f[0][0] != 'Z' && f[0][0] != 'X' {
			return true
		}
	}
	return false
}
