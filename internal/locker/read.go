package locker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// UsageError is a request that names something wrong: an entry that is
// not in the lock, a target the entry cannot take (exit 2 in cmd/mcpsum).
type UsageError struct{ msg, next string }

func (e *UsageError) Error() string { return e.msg }

// Hints are the next step, when there is one.
func (e *UsageError) Hints() []string {
	if e.next == "" {
		return nil
	}
	return []string{e.next}
}

func usageErr(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// usageHint is usageErr with the next step.
func usageHint(next, format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...), next: next}
}

// NoLockfileError is the answer to a lockfile that does not exist: it
// names the lock command that creates it (for entry Name, or NAME), and
// the user lock when there is one (import puts the servers of the user's
// own client configs there, not in ./mcp.lock).
type NoLockfileError struct{ Path, Name, UserLock string }

// NoLockfile is the NoLockfileError of path, pointing at the user lock
// when it exists and is another file.
func NoLockfile(path, name string) *NoLockfileError {
	e := &NoLockfileError{Path: path, Name: name}
	if u := clientconfig.UserLock(clientconfig.DirsFromEnv(".")); u != "" && !clientconfig.SameFile(u, path) {
		if st, err := os.Stat(u); err == nil && st.Mode().IsRegular() {
			e.UserLock = u
		}
	}
	return e
}

func (e *NoLockfileError) Error() string {
	return fmt.Sprintf("no lockfile at %s", e.Path)
}

// Hints name the lock command that creates the lockfile.
func (e *NoLockfileError) Hints() []string {
	name := "NAME"
	if e.Name != "" {
		name = termtext.ShellArg(e.Name)
	}
	create := fmt.Sprintf("mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...", termtext.ShellArg(e.Path), name)
	if dir := filepath.Dir(e.Path); dir != "." {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			// lock runs its servers in the lockfile's folder: it must exist.
			create = fmt.Sprintf("mkdir -p %s && %s", termtext.ShellArg(dir), create)
		}
	}
	steps := []string{fmt.Sprintf("create one with %s (or pass --lockfile)", create)}
	if e.UserLock != "" {
		steps = append(steps, fmt.Sprintf("your user lock, where mcpsum import put the servers of your own client configs, is %s: pass --lockfile %s", termtext.ShellArg(e.UserLock), termtext.ShellArg(e.UserLock)))
	}
	return steps
}

// Read reads the exact bytes of the lockfile once and checks its digests
// (I3): a signature over a file that does not match itself is useless. The
// parsed file is of the same bytes, so whatever is signed or verified is
// what is then used.
func Read(path string) ([]byte, *lockfile.File, error) {
	data, err := lockfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, NoLockfile(path, "")
	}
	if err != nil {
		return nil, nil, err
	}
	f, err := lockfile.Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	return data, f, nil
}

// Load reads the lockfile, checking every digest (I3).
func Load(path string) (*lockfile.File, error) {
	_, f, err := Read(path)
	return f, err
}

// Select returns the sorted server names of f, or just name if given (an
// error naming the locked ones if f has no such entry).
func Select(f *lockfile.File, path, name string) ([]string, error) {
	if name != "" {
		if _, ok := f.Servers[name]; !ok {
			return nil, NotLocked(f, path, name, "")
		}
		return []string{name}, nil
	}
	return Names(f), nil
}

// NotLocked is the usage error for an entry name that f, read from path,
// does not hold: it names the entries f holds (or says it holds none), with
// next, when given, as the next step.
func NotLocked(f *lockfile.File, path, name, next string) error {
	held := "locked: " + strings.Join(Names(f), ", ")
	if len(f.Servers) == 0 {
		held = "it has no servers"
	}
	return usageHint(next, "no server %s in %s (%s)", termtext.ShellArg(name), termtext.ShellArg(path), held)
}

// Names returns the server names of f, sorted.
func Names(f *lockfile.File) []string {
	names := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Untouched says what a failed lock did to the lockfile: nothing.
func Untouched(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "nothing was written"
	}
	return path + " was left untouched"
}

// ReadSigned reads the lockfile once, checks its digests and has the
// signing helper verify req's bundle over those exact bytes, without
// running any server. It returns who signed and the parsed file of the
// bytes that verified. A mistake in req is said before the file is read.
// A file that does not parse is checked against the signature all the
// same: a changed byte is a bad signature (a security verdict) even where
// it breaks the JSON; only a signed file that does not parse is malformed.
func ReadSigned(ctx context.Context, c attestproto.Client, req attestproto.VerifyRequest, path string) (*attestproto.Signer, *lockfile.File, error) {
	if _, err := req.Args(); err != nil {
		return nil, nil, err
	}
	data, err := lockfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, NoLockfile(path, "")
	}
	if err != nil {
		return nil, nil, err
	}
	f, perr := lockfile.Parse(path, data)
	if perr != nil && !errors.As(perr, new(*lockfile.FormatError)) {
		return nil, nil, perr // a digest mismatch: a verdict already
	}
	signer, err := c.Verify(ctx, data, req)
	if err != nil {
		return nil, nil, err
	}
	if perr != nil {
		return nil, nil, perr
	}
	return signer, f, nil
}

// Snapshot is a lockfile's identity, time and size, taken without opening
// it (a FIFO cannot block Stat), to tell later whether it was rewritten.
type Snapshot struct {
	path string
	fi   fs.FileInfo
}

// Stat takes the Snapshot of the file at path (of no file, if none).
func Stat(path string) Snapshot {
	fi, _ := os.Stat(path)
	return Snapshot{path, fi}
}

// Rewritten reports whether the file at path is no longer the one s saw:
// created, removed or replaced.
func (s Snapshot) Rewritten(path string) bool {
	before, after := s.fi, Stat(path).fi
	same := before == nil && after == nil || before != nil && after != nil && os.SameFile(before, after) &&
		before.ModTime().Equal(after.ModTime()) && before.Size() == after.Size()
	return !same
}

// InterruptedError is a lock stopped by a signal (Why) that failed with
// Err: its file is the one from before (nothing was written), or, when
// Wrote, a new one holding the servers that finished first (a lock
// replaces its file atomically). Exit 3 in cmd/mcpsum.
type InterruptedError struct {
	Why, Err error
	Path     string
	Wrote    bool
}

// Interrupted is the InterruptedError of a lock of the file s saw before
// it ran, stopped by why, that failed with err.
func (s Snapshot) Interrupted(why, err error) error {
	return &InterruptedError{Why: why, Err: err, Path: s.path, Wrote: s.Rewritten(s.path)}
}

func (e *InterruptedError) Error() string {
	if !e.Wrote {
		return fmt.Sprintf("lock interrupted (%v): nothing was written, %s is as it was", e.Why, e.Path)
	}
	return fmt.Sprintf("lock interrupted (%v): %s was rewritten with the servers that finished before it: %v", e.Why, e.Path, e.Err)
}

// Unwrap is what the lock failed with, when the file was rewritten (the
// servers' failures say what is missing from it).
func (e *InterruptedError) Unwrap() error {
	if !e.Wrote {
		return nil
	}
	return e.Err
}

// Hints: how to see what a rewritten file changed.
func (e *InterruptedError) Hints() []string {
	if !e.Wrote {
		return nil
	}
	return []string{"see what changed: git diff HEAD -- " + termtext.ShellArg(e.Path)}
}
