package process

import (
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

// GroupAlive reports whether process group pgid has a member that is not a
// zombie. kill(-pgid, 0) alone also counts zombies, which a container's init
// may never reap, so /proc is consulted when the kill probe says "exists".
func GroupAlive(pgid int) bool {
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
		st, err := ReadStat(n)
		if err != nil {
			continue // gone meanwhile
		}
		state := st.Field(3)
		if g, err := strconv.Atoi(st.Field(5)); err == nil && g == pgid && state != "" && state[0] != 'Z' && state[0] != 'X' {
			return true
		}
	}
	return false
}
