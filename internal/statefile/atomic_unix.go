//go:build unix

package statefile

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// WriteOptions say how WriteAtomic replaces a file.
type WriteOptions struct {
	// Perm is the new file's mode. With Sync, the umask applies and an
	// existing file keeps its mode (mcp.lock is the user's file); without
	// it, Perm is set exactly (private state files).
	Perm os.FileMode
	// Exact, with Sync, gives the new file exactly Perm: no umask, and an
	// existing file's mode is not kept (files installed for every user of
	// the machine, such as the fleet's org lock, are 0644 whatever the
	// installer's umask).
	Exact bool
	// Sync makes the data durable before the rename (fsync of the file, then
	// a best-effort fsync of the directory). State that does not need to
	// outlive the machine (the taint of a live client session) skips it.
	Sync bool
	// Hook, when set (tests), runs after each chunk of the temporary file is
	// written, before the rename, so a test can kill a writer mid-write.
	Hook func(written, total int)
	// BeforeRename, when set, runs once the temporary file holds all of
	// data (synced with Sync), just before the rename; an error from it
	// leaves path untouched, removes the temporary file and is returned. A
	// caller uses it to check that nobody else wrote path meanwhile.
	BeforeRename func() error
}

// WriteChunk is the size of the pieces WriteAtomic writes (and reports to
// WriteOptions.Hook).
const WriteChunk = 64 << 10

// WriteAtomic replaces path with data through a temporary file in the same
// directory and a rename: a reader sees the old or the new contents, never a
// torn file, and a crash leaves at worst a stray ".NAME*" temporary file.
func WriteAtomic(path string, data []byte, o WriteOptions) error {
	if o.Sync {
		return writeSynced(path, data, o)
	}
	dir := filepath.Dir(path)
	t, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(t.Name()) // a no-op after the rename
	if err := writeChunks(t, data, o.Hook); err != nil {
		t.Close()
		return err
	}
	if err := t.Chmod(o.Perm); err != nil {
		t.Close()
		return err
	}
	if err := t.Close(); err != nil {
		return err
	}
	if o.BeforeRename != nil {
		if err := o.BeforeRename(); err != nil {
			return err
		}
	}
	return os.Rename(t.Name(), path)
}

func writeSynced(path string, data []byte, o WriteOptions) error {
	dir := filepath.Dir(path)
	opts := []renameio.Option{renameio.WithTempDir(dir), renameio.WithPermissions(o.Perm), renameio.WithExistingPermissions()}
	if o.Exact {
		opts = []renameio.Option{renameio.WithTempDir(dir), renameio.WithStaticPermissions(o.Perm)}
	}
	t, err := renameio.NewPendingFile(path, opts...)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if err := writeChunks(t.File, data, o.Hook); err != nil {
		return err
	}
	if o.BeforeRename != nil {
		if err := t.Sync(); err != nil {
			return err
		}
		if err := o.BeforeRename(); err != nil {
			return err
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

func writeChunks(f *os.File, data []byte, hook func(written, total int)) error {
	for off := 0; off < len(data); off += WriteChunk {
		end := min(off+WriteChunk, len(data))
		if _, err := f.Write(data[off:end]); err != nil {
			return err
		}
		if hook != nil {
			hook(end, len(data))
		}
	}
	return nil
}

// CreateExclusive creates path with data and exactly perm, synced. It never
// follows or replaces anything already at path: an existing file, or a
// symbolic link planted there (even one pointing nowhere), is an error
// matching fs.ErrExist (or ELOOP), and nothing is written anywhere. A failed
// write removes the half-written file.
func CreateExclusive(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	err = f.Chmod(perm) // exactly perm, whatever the umask
	if err == nil {
		err = writeChunks(f, data, nil)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// PublishExclusive is CreateExclusive for a file that others read while it is
// created (a key shared by concurrent processes): data goes to a temporary
// file in the same directory, exactly perm and synced, which is then linked
// into place with link(2). A reader sees no file or the whole file, never a
// partial one; link(2) never follows or replaces what is at path (a file or
// a symbolic link, even a dangling one, is an error matching fs.ErrExist), so
// of concurrent writers exactly one wins. The temporary file is removed
// either way.
func PublishExclusive(path string, data []byte, perm os.FileMode) error {
	t, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(t.Name())
	err = t.Chmod(perm)
	if err == nil {
		err = writeChunks(t, data, nil)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(t.Name(), path)
}
