package clientconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
)

// ErrChanged means the file changed while mcpsum was working on it (another
// program wrote it); nothing was written.
var ErrChanged = errors.New("changed since it was read")

// backupInfix separates the config's name from the backup's time stamp.
const backupInfix = ".mcpsum-backup-"

// Write replaces the config file at path, whose content was old when it was
// read, with data:
//
//  1. a backup of old is written beside it (path.mcpsum-backup-TIME, with
//     path.mcpsum-backup-TIME.sha256 recording what mcpsum wrote, for Undo);
//  2. data goes to a temporary file in the same folder, synced;
//  3. the file is read again just before the rename: if another program
//     wrote it since it was read, nothing is replaced (ErrChanged) and the
//     backup is removed;
//  4. the temporary file is renamed over path (atomic on one file system).
//
// A symbolic link is followed: its target is replaced, the link kept. The
// file's permission bits are kept. beforeRename, when not nil, runs between
// steps 2 and 3 (tests use it to play a concurrent writer).
func Write(path string, old, data []byte, now time.Time, beforeRename func()) (backup string, err error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	backup, err = writeBackup(target, old, data, st.Mode().Perm(), now)
	if err != nil {
		return "", err
	}
	if err := replace(target, old, data, st.Mode().Perm(), beforeRename); err != nil {
		removeBackup(backup)
		return "", err
	}
	return backup, nil
}

func writeBackup(target string, old, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		name := target + backupInfix + stamp
		if i > 0 {
			name += fmt.Sprintf("-%d", i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("writing the backup: %w", err)
		}
		_, err = f.Write(old)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			sum := sha256.Sum256(data)
			err = os.WriteFile(name+".sha256", []byte(hex.EncodeToString(sum[:])+"\n"), perm)
		}
		if err != nil {
			removeBackup(name)
			return "", fmt.Errorf("writing the backup %s: %w", name, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("too many backups of %s with the time stamp %s", target, stamp)
}

func removeBackup(name string) {
	os.Remove(name)
	os.Remove(name + ".sha256")
}

// replace writes data over target atomically, unless target no longer holds old.
func replace(target string, old, data []byte, perm fs.FileMode, beforeRename func()) error {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".mcpsum-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename()
	}
	now, err := os.ReadFile(target)
	if err != nil {
		return err
	}
	if !bytes.Equal(now, old) {
		return fmt.Errorf("%s %w (another program wrote it, e.g. a running client); nothing was written: run the same command again", target, ErrChanged)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		_ = d.Sync() // make the rename durable where the OS allows
		d.Close()
	}
	return nil
}

// Backups lists the backups of path, newest last.
func Backups(path string) ([]string, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	matches, err := filepath.Glob(globEscape(target) + backupInfix + "*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if !strings.HasSuffix(m, ".sha256") {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(backupOrder(a), backupOrder(b)) })
	return out, nil
}

// backupOrder sorts "…T150405Z" before "…T150405Z-1" before "…T150405Z-10".
func backupOrder(name string) string {
	i := strings.LastIndex(name, backupInfix)
	stamp, n, _ := strings.Cut(name[i+len(backupInfix):], "-")
	return fmt.Sprintf("%s-%06s", stamp, n)
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`)
	if filepath.Separator == '\\' {
		return s // no escaping on Windows; Claude's paths hold none of these
	}
	return r.Replace(s)
}

// Undo restores path from its newest backup, if path still holds exactly
// what mcpsum wrote then; otherwise it refuses, naming the backup so a
// person can compare by hand. On success the backup is removed.
func Undo(path string) (restored string, err error) {
	list, err := Backups(path)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%s has no mcpsum backup: nothing to undo", path)
	}
	backup := list[len(list)-1]
	// A backup is a file mcpsum wrote: a link in its place (a cloned
	// repository's, to a private file of the user) is not followed.
	want, err := safeio.ReadOwn(backup+".sha256", "backup checksum", 1<<10)
	if err != nil {
		return "", fmt.Errorf("backup %s: %w", backup, err)
	}
	old, err := safeio.ReadOwn(backup, "backup", MaxConfig)
	if err != nil {
		return "", err
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	cur, err := ReadFile(target)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(cur)
	if hex.EncodeToString(sum[:]) != strings.TrimSpace(string(want)) {
		return "", fmt.Errorf("%s changed after mcpsum wrote it, so undo would lose those changes; nothing was restored. Compare it with the backup yourself: diff %s %s", path, backup, path)
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if err := replace(target, cur, old, st.Mode().Perm(), nil); err != nil {
		return "", err
	}
	removeBackup(backup)
	return backup, nil
}
