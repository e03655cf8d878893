//go:build !unix

package statefile

import (
	"errors"
	"os"
	"time"
)

var errUnsupported = errors.New("mcpsum state files (locks, atomic replace) are supported on Linux and macOS only")

// Lock is not available on this platform.
type Lock struct{}

// ErrLockTimeout is returned by LockTimeout when another process held the lock.
var ErrLockTimeout = errors.New("another mcpsum process holds the lock")

// LockExclusive is not available on this platform.
func LockExclusive(path string) (*Lock, error) { return nil, errUnsupported }

// LockTimeout is not available on this platform.
func LockTimeout(path string, wait time.Duration) (*Lock, error) { return nil, errUnsupported }

// Unlock does nothing.
func (l *Lock) Unlock() error { return nil }

// WriteOptions say how WriteAtomic replaces a file.
type WriteOptions struct {
	Perm         os.FileMode
	Exact        bool
	Sync         bool
	Hook         func(written, total int)
	BeforeRename func() error
}

// CreateExclusive is not available on this platform.
func CreateExclusive(path string, data []byte, perm os.FileMode) error { return errUnsupported }

// PublishExclusive is not available on this platform.
func PublishExclusive(path string, data []byte, perm os.FileMode) error { return errUnsupported }

// WriteAtomic is not available on this platform.
func WriteAtomic(path string, data []byte, o WriteOptions) error { return errUnsupported }

// OpenAppend is not available on this platform.
func OpenAppend(path string) (*os.File, error) { return nil, errUnsupported }

// OpenTruncate is not available on this platform.
func OpenTruncate(path string) (*os.File, error) { return nil, errUnsupported }

// Log is not available on this platform.
type Log struct{}

// OpenLog is not available on this platform.
func OpenLog(path string, max int64) (*Log, error) { return nil, errUnsupported }

// Append is not available on this platform.
func (l *Log) Append(line []byte) error { return errUnsupported }

// Close does nothing.
func (l *Log) Close() error { return nil }
