//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// Log is an append-only JSON-lines file of bounded size shared by several
// processes. Each line goes out in one write(2) on a descriptor opened with
// O_APPEND, so lines of concurrent writers never interleave. When a line
// would take the file past Max bytes, the file is renamed to PATH.1
// (replacing the previous PATH.1) and a new one is started: the log never
// takes more than about twice Max on disk, and the newest lines are kept.
type Log struct {
	path string
	max  int64
	mu   sync.Mutex
	f    *os.File
}

// OpenLog opens (creating it 0600, see OpenAppend) the log at path with a size bound of max
// bytes.
func OpenLog(path string, max int64) (*Log, error) {
	l := &Log{path: path, max: max}
	if err := l.reopen(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) reopen() error {
	f, err := OpenAppend(l.path)
	if err != nil {
		return hint.Errorf("check that its folder exists and is writable", "open log %s: %w", l.path, err)
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f = f
	return nil
}

// Append writes line (a newline is added) as one write. The size check, a
// rotation and the write happen under an flock on the file the path names
// (checked after taking it), so concurrent writers in other processes can
// neither take the file past the bound nor write into a rotated copy.
func (l *Log) Append(line []byte) error {
	if l == nil {
		return errors.New("log is not open")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("log %s is closed", l.path)
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	for range 64 {
		fd := int(l.f.Fd())
		if err := flock(fd, syscall.LOCK_EX); err != nil {
			return fmt.Errorf("lock log %s: %w", l.path, err)
		}
		done, err := l.appendLocked(buf)
		syscall.Flock(fd, syscall.LOCK_UN)
		if done || err != nil {
			return err
		}
		// The path names another file now (a rotation, ours or another
		// process's): write to that one.
		if err := l.reopen(); err != nil {
			return err
		}
	}
	return fmt.Errorf("log %s: the file keeps changing under us", l.path)
}

// appendLocked writes buf while the caller holds the flock on l.f. It
// reports false when l.f is no longer the file at the path (after renaming
// a full file to PATH.1 itself), so the caller reopens and tries again.
func (l *Log) appendLocked(buf []byte) (bool, error) {
	cur, err := os.Stat(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	mine, err := l.f.Stat()
	if err != nil {
		return false, err
	}
	if !os.SameFile(cur, mine) {
		return false, nil
	}
	if mine.Size() > 0 && mine.Size()+int64(len(buf)) > l.max {
		if err := os.Rename(l.path, l.path+".1"); err != nil {
			return false, fmt.Errorf("rotate log %s: %w", l.path, err)
		}
		return false, nil
	}
	_, err = l.f.Write(buf)
	return true, err
}

func flock(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Close closes the log.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
