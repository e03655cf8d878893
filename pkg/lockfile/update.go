//go:build unix

package lockfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// Update runs a read-modify-write of the lockfile at path under an exclusive
// flock(2) on the lockfile's directory, so concurrent writers (goroutines or
// processes) never lose each other's changes. Locking the directory leaves no
// lock file behind for users to ignore or commit, and the directory outlives
// every rename of the file, so the lock always guards the current file:
//
//  1. read the current file (a missing file is an empty version-1 File) and
//     Parse it; a parse or integrity error aborts Update;
//  2. call fn, which edits f in place (use NewServer and KeepPolicy);
//  3. Marshal, then Parse the result again (a wrong digest never reaches
//     the disk);
//  4. replace the file atomically (renameio: temporary file in the same
//     directory, fsync, rename, then a best-effort fsync of the directory), keeping the
//     existing file's permissions (a new file gets 0644 minus the umask).
//
// If fn or a check fails, the file is left byte-identical. A crash leaves the
// old or the new file, never a torn one (at worst a stray ".mcp.lock*"
// temporary file). If path is a symbolic link, its target is replaced.
func Update(path string, fn func(f *File) error) error {
	return UpdateFrom(path, nil, fn)
}

// UpdateFrom is Update for a caller that already loaded the file: when the
// bytes read under the lock are exactly those loaded was parsed from, step 1
// reuses loaded instead of parsing (and checking every digest) again. loaded
// (from Load or Parse, possibly nil) must not have been modified since; fn
// gets a copy of it with its own Servers map.
func UpdateFrom(path string, loaded *File, fn func(f *File) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	lk, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("lock %s: open its directory: %w", path, err)
	}
	defer lk.Close() // closing releases the flock
	for {
		err = syscall.Flock(int(lk.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}

	old, err := os.ReadFile(path)
	var f *File
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f = &File{Version: 1, Servers: map[string]*Server{}}
		old = nil
	case err != nil:
		return fmt.Errorf("read lockfile: %w", err)
	case loaded != nil && loaded.srcSum != nil && *loaded.srcSum == sha256.Sum256(old):
		f = &File{Version: loaded.Version, Generator: loaded.Generator, Servers: maps.Clone(loaded.Servers)}
	default:
		if f, err = Parse(path, old); err != nil {
			return err
		}
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	if err := fn(f); err != nil {
		return err
	}
	out, err := Marshal(f)
	if err != nil {
		return err
	}
	if _, err := Parse(path, out); err != nil {
		return fmt.Errorf("lockfile %s: refusing to write an invalid lockfile, the file is unchanged: %w", path, err)
	}
	if old != nil && bytes.Equal(old, out) {
		return nil
	}
	if err := writeAtomic(path, out); err != nil {
		return fmt.Errorf("write lockfile %s: %w (the file is unchanged)", path, err)
	}
	return nil
}

// writeHook, when set by a test, runs after each chunk of the temporary file
// is written (before the rename), so a test can kill a writer mid-write.
var writeHook func(written, total int)

const writeChunk = 64 << 10

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	t, err := renameio.NewPendingFile(path,
		renameio.WithTempDir(dir),
		renameio.WithPermissions(0o644),
		renameio.WithExistingPermissions())
	if err != nil {
		return err
	}
	defer t.Cleanup()
	for off := 0; off < len(data); off += writeChunk {
		end := min(off+writeChunk, len(data))
		if _, err := t.Write(data[off:end]); err != nil {
			return err
		}
		if writeHook != nil {
			writeHook(end, len(data))
		}
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return err
	}
	// Best effort: make the rename itself durable. Some file systems refuse
	// fsync on a directory; the replace has happened either way.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
