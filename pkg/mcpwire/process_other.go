//go:build unix && !linux

package mcpwire

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}

// groupAlive reports whether process group pgid still exists (zombies count).
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) != syscall.ESRCH }
