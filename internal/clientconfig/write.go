package clientconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/statefile"
)

// ErrChanged means the file changed while mcpsum was working on it (another
// program wrote it); nothing was written.
var ErrChanged = errors.New("changed since it was read")

// ErrLeavesProject means a project config is a link (or sits under a linked
// folder) whose real file is outside the project: it is never written.
var ErrLeavesProject = errors.New("leaves the project")

// backupInfix separates the config's name from the backup's time stamp.
const backupInfix = ".mcpsum-backup-"

// WriteOptions say how Write replaces a config.
type WriteOptions struct {
	Now time.Time
	// StateDir is mcpsum's private state folder: the record of the write
	// (which backup mcpsum made, its checksum, the entries it changed) goes
	// there, where a repository cannot plant one. Required.
	StateDir string
	// Client is the client whose format the file is in (Undo parses it
	// again for a per-entry undo); Changes are the entries rewritten.
	Client  string
	Changes []EntryChange
	// Project, when set, is the project folder of a project config: the
	// file's real path must be inside its real path, or nothing is written
	// (ErrLeavesProject).
	Project string
	// BeforeRename, when set (tests), runs just before the file is checked
	// for a concurrent writer and replaced.
	BeforeRename func()
}

// Write replaces the config file at path, whose content was old when it was
// read, with data:
//
//  1. a backup of old is created beside it (path.mcpsum-backup-TIME, same
//     permissions), exclusively: nothing planted there is followed or
//     replaced;
//  2. the write is recorded in the state folder (Undo restores only a
//     backup recorded there);
//  3. data goes to a temporary file in the same folder, synced; the file is
//     read again just before the rename: if another program wrote it since
//     it was read, nothing is replaced (ErrChanged) and backup and record
//     are removed;
//  4. the temporary file is renamed over path (atomic on one file system).
//
// A symbolic link is followed (its target is replaced, the link kept),
// except that a project config's link must not leave the project. The
// file's permission bits are kept.
func Write(path string, old, data []byte, o WriteOptions) (backup string, err error) {
	target, err := realConfig(path, o.Project)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	backup, err = writeBackup(target, old, st.Mode().Perm(), o.Now)
	if err != nil {
		return "", err
	}
	rec := Record{Config: target, Client: o.Client, Backup: backup, BackupSum: sum(old),
		WrittenSum: sum(data), Time: o.Now.UTC(), Entries: o.Changes}
	if err := addRecord(o.StateDir, rec); err != nil {
		os.Remove(backup)
		return "", err
	}
	if err := replace(target, old, data, o.BeforeRename); err != nil {
		os.Remove(backup)
		_ = dropRecord(o.StateDir, target, backup)
		return "", err
	}
	return backup, nil
}

// CheckWritable says why Write would refuse the config at path of a project
// config (project set): its real file is outside the project. Import checks
// it before it starts any server.
func CheckWritable(path, project string) error {
	_, err := realConfig(path, project)
	return err
}

// realConfig resolves path's links; for a project config (project set) the
// real file must be inside the project's real folder.
func realConfig(path, project string) (string, error) {
	target, err := realPath(path)
	if err != nil {
		return "", err
	}
	if project == "" {
		return target, nil
	}
	realProject, err := realPath(project)
	if err != nil {
		return "", err
	}
	if !underDir(target, realProject) {
		return "", fmt.Errorf("%s is a project config, but its real file is %s, outside the project %s: a project config that %w is never written; nothing was written (import that file by its own path if it is yours)",
			path, target, realProject, ErrLeavesProject)
	}
	return target, nil
}

// realPath is path made absolute with every link resolved: the one name of
// a file that records are keyed by.
func realPath(path string) (string, error) {
	r, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func writeBackup(target string, old []byte, perm fs.FileMode, now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		name := target + backupInfix + stamp
		if i > 0 {
			name += fmt.Sprintf("-%d", i)
		}
		err := statefile.CreateExclusive(name, old, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("writing the backup %s: %w", name, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("too many backups of %s with the time stamp %s", target, stamp)
}

// replace writes data over target atomically, unless target no longer holds old.
func replace(target string, old, data []byte, beforeRename func()) error {
	return statefile.WriteAtomic(target, data, statefile.WriteOptions{Perm: 0o600, Sync: true,
		BeforeRename: func() error {
			if beforeRename != nil {
				beforeRename()
			}
			now, err := ReadFile(target)
			if err != nil {
				return err
			}
			if !bytes.Equal(now, old) {
				return hint.Errorf("run the same command again", "%s %w (another program wrote it, e.g. a running client); nothing was written", target, ErrChanged)
			}
			return nil
		}})
}

// Backups lists the files beside path named like an mcpsum backup, whether
// mcpsum made them or not.
func Backups(path string) ([]string, error) {
	target, err := realPath(path)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Dir(target))
	if err != nil {
		return nil, err
	}
	prefix := filepath.Base(target) + backupInfix
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, filepath.Join(filepath.Dir(target), e.Name()))
		}
	}
	return out, nil
}
