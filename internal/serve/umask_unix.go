//go:build unix

package serve

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
