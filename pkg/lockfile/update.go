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

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
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
//  4. replace the file atomically (internal/statefile: temporary file in the same
//     directory, fsync, rename, then a best-effort fsync of the directory), keeping the
//     existing file's permissions (a new file gets 0644 minus the umask).
//
// If fn or a check fails, the file is left byte-identical. A crash leaves the
// old or the new file, never a torn one (at worst a stray ".mcp.lock*"
// temporary file). If path is a symbolic link, nothing is written
// (*LinkError): a cloned repository's mcp.lock that links to one of the
// user's files must not make lock write there; the user names the target
// itself if that is what they mean.
func Update(path string, fn func(f *File) error) error {
	_, err := update(path, nil, "", nil, fn)
	return err
}

// ReplaceConflicted writes f in place of the lockfile at path, which must
// still hold exactly conflicted: the bytes, with merge conflict markers
// (ErrMergeConflict), that f was resolved from. It is Update otherwise
// (directory lock, Marshal, Parse again, atomic replacement); a file that
// changed meanwhile is left as it is.
func ReplaceConflicted(path string, conflicted []byte, f *File) error {
	_, err := update(path, nil, "", conflicted, func(nf *File) error {
		nf.Generator, nf.Servers = f.Generator, maps.Clone(f.Servers)
		return nil
	})
	return err
}

// UpdateFrom is Update for a caller that already loaded the file: when the
// bytes read under the lock are exactly those loaded was parsed from, step 1
// reuses loaded instead of parsing (and checking every digest) again. loaded
// (from Load or Parse, possibly nil) must not have been modified since; fn
// gets a copy of it with its own Servers map.
func UpdateFrom(path string, loaded *File, fn func(f *File) error) error {
	_, err := update(path, loaded, "", nil, fn)
	return err
}

// UpdateDiscarding is Update for the explicit recovery of a broken entry:
// an entry named discard that does not parse or match its digests is left
// out of the File fn sees (fn then writes its replacement) and its error is
// returned as discarded; every other entry must be valid.
func UpdateDiscarding(path, discard string, fn func(f *File) error) (discarded, err error) {
	return update(path, nil, discard, nil, fn)
}

func update(path string, loaded *File, discard string, conflicted []byte, fn func(f *File) error) (discarded, err error) {
	if err := refuseLink(path); err != nil {
		return nil, err
	}
	if err := statefile.CheckOwn(path); err != nil { // as ReadFile
		return nil, err
	}
	lk, err := statefile.LockExclusive(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("lockfile %s: %w", path, err)
	}
	defer lk.Unlock()

	// Not following a link planted since refuseLink; the rename below
	// replaces the name itself, never a link's target.
	old, err := safeio.ReadOwn(path, "lockfile", MaxFileSize)
	if errors.As(err, new(*safeio.LinkError)) {
		err = refuseLink(path)
	}
	var f *File
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f = &File{Version: 1, Servers: map[string]*Server{}}
		old = nil
	case err != nil:
		return nil, fmt.Errorf("read lockfile: %w", err)
	case conflicted != nil:
		if !bytes.Equal(old, conflicted) {
			return nil, fmt.Errorf("lockfile %s changed while its merge conflict was being resolved; nothing was written: run the command again", path)
		}
		f = &File{Version: 1}
	case loaded != nil && loaded.srcSum != nil && *loaded.srcSum == sha256.Sum256(old):
		f = &File{Version: loaded.Version, Generator: loaded.Generator, Servers: maps.Clone(loaded.Servers)}
	default:
		if f, discarded, err = ParseDiscarding(path, old, discard); err != nil {
			return nil, err
		}
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	if err := fn(f); err != nil {
		return nil, err
	}
	out, err := Marshal(f)
	if err != nil {
		return nil, err
	}
	if _, err := Parse(path, out); err != nil {
		return nil, fmt.Errorf("lockfile %s: refusing to write an invalid lockfile, the file is unchanged: %w", path, err)
	}
	if old != nil && bytes.Equal(old, out) {
		return discarded, nil
	}
	if err := writeAtomic(path, out); err != nil {
		return nil, fmt.Errorf("write lockfile %s: %w (the file is unchanged)", path, err)
	}
	return discarded, nil
}

// LinkError is a lockfile path whose last element is a symbolic link:
// Update writes nothing through it.
type LinkError struct{ Path, Target string }

func (e *LinkError) Error() string {
	return fmt.Sprintf("lockfile %s is a symbolic link (to %s); mcpsum never writes a lockfile through a link "+
		"(a cloned repository's link could name any of your files): remove the link, "+
		"or name the file itself with --lockfile %s", e.Path, termtext.Quoted(e.Target, 80), termtext.ShellArg(e.Target))
}

func refuseLink(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // a missing file is created; other errors surface on read
	}
	target, err := os.Readlink(path)
	if err != nil {
		return fmt.Errorf("lockfile %s: %w", path, err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return &LinkError{Path: path, Target: target}
}

// writeHook, when set by a test, runs after each chunk of the temporary file
// is written (before the rename), so a test can kill a writer mid-write.
var writeHook func(written, total int)

const writeChunk = statefile.WriteChunk

func writeAtomic(path string, data []byte) error {
	return statefile.WriteAtomic(path, data, statefile.WriteOptions{Perm: 0o644, Sync: true, Hook: writeHook})
}
