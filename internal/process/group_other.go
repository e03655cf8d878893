//go:build unix && !linux

package process

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}

// GroupAlive reports whether process group pgid still exists (zombies count).
func GroupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) != syscall.ESRCH }
