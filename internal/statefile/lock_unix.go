//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock is an exclusive flock(2) on a file or directory. The kernel releases
// it when the holder closes it or dies (even by SIGKILL), so a crashed holder
// never blocks the next one.
type Lock struct{ f *os.File }

// LockExclusive blocks until it holds an exclusive lock on path (a directory
// or an existing file).
func LockExclusive(path string) (*Lock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// ErrLockTimeout is returned by LockTimeout when another process held the
// lock for the whole wait.
var ErrLockTimeout = errors.New("another mcpsum process holds the lock")

// LockTimeout is LockExclusive that gives up after wait (polling with a
// short, growing pause), so a holder that is alive but stuck (stopped with
// SIGSTOP, say) cannot hang the caller forever.
func LockTimeout(path string, wait time.Duration) (*Lock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	pause := 200 * time.Microsecond
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return &Lock{f: f}, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w (waited %v)", path, ErrLockTimeout, wait)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// Unlock releases the lock. It is safe to call more than once.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the flock
	l.f = nil
	return err
}
