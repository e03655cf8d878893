//go:build !unix

package lockfile

import "errors"

// Update is not available on this platform (no flock(2), and renameio's
// atomic replace is Unix-only); mcp.lock can still be read with Load.
func Update(path string, fn func(f *File) error) error {
	return errors.New("lockfile update: writing mcp.lock is supported on Linux and macOS only")
}

// UpdateFrom is Update for a caller that already loaded the file.
func UpdateFrom(path string, loaded *File, fn func(f *File) error) error {
	return Update(path, fn)
}

// UpdateDiscarding is Update for the recovery of a broken entry; like
// Update, it is not available on this platform.
func UpdateDiscarding(path, discard string, fn func(f *File) error) (discarded, err error) {
	return nil, Update(path, fn)
}

// ReplaceConflicted is Update for a file resolved from a merge conflict;
// like Update, it is not available on this platform.
func ReplaceConflicted(path string, conflicted []byte, f *File) error {
	return Update(path, nil)
}
