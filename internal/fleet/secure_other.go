//go:build !unix

package fleet

import (
	"errors"
	"io/fs"
)

var errUnix = errors.New("the fleet's org lock is installed and checked on Unix systems only (Linux, macOS)")

func secureDir(dir string) error   { return errUnix }
func secureFile(path string) error { return errUnix }
func securePath(path string) error { return errUnix }

func missing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
