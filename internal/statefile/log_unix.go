//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"
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
	seen time.Time // when follow last looked at the path
}

// followEvery is how often Append checks whether another process rotated
// the file while ours still has room; in between, lines go to the
// descriptor it has (at worst a second's lines land in the rotated copy,
// within its bound).
const followEvery = time.Second

// OpenLog opens (creating it 0600) the log at path with a size bound of max
// bytes.
func OpenLog(path string, max int64) (*Log, error) {
	l := &Log{path: path, max: max}
	if err := l.reopen(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) reopen() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log %s: %w (check that its folder exists and is writable)", l.path, err)
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f = f
	return nil
}

// Append writes line (a newline is added) as one write.
func (l *Log) Append(line []byte) error {
	if l == nil {
		return errors.New("log is not open")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("log %s is closed", l.path)
	}
	// fstat of our descriptor sees every process's appends to this file;
	// whether the path still names it is checked once a second, and always
	// before a rotation, so no line goes to a file past the bound.
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	full := st.Size()+int64(len(line))+1 > l.max && st.Size() > 0
	if now := time.Now(); full || now.Sub(l.seen) >= followEvery {
		if err := l.follow(); err != nil {
			return err
		}
		l.seen = now
		if st, err = l.f.Stat(); err != nil {
			return err
		}
		if st.Size()+int64(len(line))+1 > l.max && st.Size() > 0 {
			if err := l.rotate(); err != nil {
				return err
			}
		}
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	_, err = l.f.Write(buf)
	return err
}

// follow reopens the path when another process rotated the file since we
// opened it, so our lines go to the current file, not the old one.
func (l *Log) follow() error {
	cur, err := os.Stat(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return l.reopen()
	}
	if err != nil {
		return err
	}
	mine, err := l.f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(cur, mine) {
		return l.reopen()
	}
	return nil
}

// rotate renames the full file to PATH.1 under an flock on it; a process
// that waited for the lock finds the path moved on and just reopens.
func (l *Log) rotate() error {
	fd := int(l.f.Fd())
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("lock log %s: %w", l.path, err)
		}
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)
	cur, err := os.Stat(l.path)
	mine, err2 := l.f.Stat()
	if err == nil && err2 == nil && os.SameFile(cur, mine) && mine.Size() > 0 {
		if err := os.Rename(l.path, l.path+".1"); err != nil {
			return fmt.Errorf("rotate log %s: %w", l.path, err)
		}
	}
	return l.reopen()
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
