//go:build !linux

package jsonline

import "time"

// threadCPU is not measured here: the CPU rate is not reported.
func threadCPU() time.Duration { return 0 }
