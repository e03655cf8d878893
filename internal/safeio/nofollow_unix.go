//go:build unix

package safeio

import "syscall"

const oNoFollow = syscall.O_NOFOLLOW
