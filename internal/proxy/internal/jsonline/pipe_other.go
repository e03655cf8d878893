//go:build !linux

package jsonline

import "os"

// GrowPipe is a no-op where pipes cannot be resized (F_SETPIPE_SZ is
// Linux's): it reports false.
func GrowPipe(f *os.File, size int) bool { return false }
