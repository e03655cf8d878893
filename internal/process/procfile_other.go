//go:build !linux

package process

import "os"

func readProcFile(path string) ([]byte, error) { return os.ReadFile(path) }
