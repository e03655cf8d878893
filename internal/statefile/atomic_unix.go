//go:build unix

package statefile

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteOptions say how WriteAtomic replaces a file.
type WriteOptions struct {
	// Perm is the new file's mode. With Sync, the umask applies and an
	// existing file keeps its mode (mcp.lock is the user's file); without
	// it, Perm is set exactly (private state files).
	Perm os.FileMode
	// Sync makes the data durable before the rename (fsync of the file, then
	// a best-effort fsync of the directory). State that does not need to
	// outlive the machine (the taint of a live client session) skips it.
	Sync bool
	// Hook, when set (tests), runs after each chunk of the temporary file is
	// written, before the rename, so a test can kill a writer mid-write.
	Hook func(written, total int)
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
	return os.Rename(t.Name(), path)
}

func writeSynced(path string, data []byte, o WriteOptions) error {
	dir := filepath.Dir(path)
	t, err := renameio.NewPendingFile(path,
		renameio.WithTempDir(dir),
		renameio.WithPermissions(o.Perm),
		renameio.WithExistingPermissions())
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if err := writeChunks(t.File, data, o.Hook); err != nil {
		return err
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
