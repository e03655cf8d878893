package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteOutput writes a file the user named on the command line (a SARIF
// report, a signature bundle). A regular file, or a path that does not exist
// yet, is replaced atomically as WriteAtomic does with Sync (through a
// symlink: its target is replaced, the link stays). Anything else that
// already exists — /dev/null, /dev/stdout, a FIFO — is written in place:
// renaming a file over it would put a regular file where a device node was
// (for root, /dev/null of the whole machine).
func WriteOutput(path string, data []byte, perm os.FileMode) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dir := filepath.Dir(path); dir != "" {
			if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: its folder %s does not exist", path, dir)
			}
		}
	case err != nil:
		return err
	case fi.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
	case !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	default:
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	return WriteAtomic(path, data, WriteOptions{Perm: perm, Sync: true})
}

// LinkError is an output path mcpsum derived itself (not one the user named)
// that is a symbolic link: following it could overwrite any file the link
// names (a cloned repository's mcp.lock.sigstore.json → ~/.bashrc).
type LinkError struct {
	Path, Target string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link (to %s); mcpsum does not write through a link it was not given", e.Path, e.Target)
}

// WriteDerived writes a file at a path mcpsum chose (a default such as
// <lockfile>.sigstore.json): a symbolic link there is refused (LinkError),
// as is anything but a regular file; the file is replaced by a rename, which
// replaces the name itself, so a link planted after the check is replaced,
// never followed.
func WriteDerived(path string, data []byte, perm os.FileMode) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return &LinkError{Path: path, Target: target}
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "write", Path: path, Err: errors.New("exists and is not a regular file")}
	}
	return WriteAtomic(path, data, WriteOptions{Perm: perm, Sync: true})
}
