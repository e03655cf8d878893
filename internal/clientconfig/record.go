package clientconfig

import (
	"encoding/json"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

// Record is what mcpsum remembers of one write of a config, in its private
// state folder. Undo trusts only what a record says: a backup file beside
// the config (a cloned repository can ship one, dated 2999, with any
// checksum beside it) is used only when a record names it and its bytes
// still have the recorded checksum.
type Record struct {
	Config     string        `json:"config"` // the config's real path
	Client     string        `json:"client"`
	Backup     string        `json:"backup"`
	BackupSum  string        `json:"backupSha256"`  // of the backup (the config before the write)
	WrittenSum string        `json:"writtenSha256"` // of what mcpsum wrote
	Time       time.Time     `json:"time"`
	Entries    []EntryChange `json:"entries"`
}

// EntryChange is one entry a write rewrote: its command line before and after.
type EntryChange struct {
	Scope  string   `json:"scope,omitempty"`
	Name   string   `json:"name"`
	Before []string `json:"before"`
	After  []string `json:"after"`
	// BeforeText is a remote entry's whole text before the write (it had
	// no command line to put back).
	BeforeText string `json:"beforeText,omitempty"`
	// AfterText, for an entry import pointed at mcpsum serve (its whole
	// value replaced), is the text written; BeforeText is then the whole
	// entry before, whatever it was.
	AfterText string `json:"afterText,omitempty"`
}

// maxRecords bounds the records kept per config (the oldest go first).
const maxRecords = 50

// recordDir is the folder of the records in the state folder.
func recordDir(stateDir string) string { return filepath.Join(stateDir, "import-backups") }

// recordFile is where the records of the config at target are kept: one
// file per config, named by the hash of its real path.
func recordFile(stateDir, target string) string {
	return filepath.Join(recordDir(stateDir), sum([]byte(target))[:32]+".json")
}

// loadRecords reads the records of target (none when there is no file).
func loadRecords(stateDir, target string) ([]Record, error) {
	if stateDir == "" {
		return nil, hint.New("no state folder to keep the record of an import's backups in", "set XDG_STATE_HOME")
	}
	p := recordFile(stateDir, target)
	if err := statefile.CheckOwn(p); err != nil {
		return nil, err
	}
	data, err := safeio.ReadOwn(p, "import record", 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Record
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, hint.Errorf("remove it to forget the backups it names", "import record %s: %w", p, err)
	}
	var out []Record
	for _, r := range recs {
		if r.Config == target { // a hash collision, or a file moved in by hand: not ours
			out = append(out, r)
		}
	}
	return out, nil
}

// updateRecords changes target's records under an exclusive lock of the
// record folder (created private).
func updateRecords(stateDir, target string, change func([]Record) []Record) error {
	if stateDir == "" {
		return hint.New("no state folder to keep the record of an import's backups in", "set XDG_STATE_HOME")
	}
	dir := recordDir(stateDir)
	if err := statefile.MkdirPrivate(dir); err != nil {
		return err
	}
	l, err := statefile.LockExclusive(dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	recs, err := loadRecords(stateDir, target)
	if err != nil {
		return err
	}
	recs = change(recs)
	if len(recs) > maxRecords {
		recs = recs[len(recs)-maxRecords:]
	}
	p := recordFile(stateDir, target)
	if len(recs) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	return statefile.WriteAtomic(p, append(data, '\n'), statefile.WriteOptions{Perm: 0o600, Sync: true})
}

func addRecord(stateDir string, r Record) error {
	return updateRecords(stateDir, r.Config, func(recs []Record) []Record { return append(recs, r) })
}

func dropRecord(stateDir, target, backup string) error {
	return updateRecords(stateDir, target, func(recs []Record) []Record {
		var out []Record
		for _, r := range recs {
			if r.Backup != backup {
				out = append(out, r)
			}
		}
		return out
	})
}

// replaceRecord swaps the record of backup for r (what is left of it after
// a per-entry undo).
func replaceRecord(stateDir, target string, r Record) error {
	return updateRecords(stateDir, target, func(recs []Record) []Record {
		for i := range recs {
			if recs[i].Backup == r.Backup {
				recs[i] = r
			}
		}
		return recs
	})
}

// HasRecord reports whether mcpsum recorded a write of the config at path
// (with name set: whether its last write changed that server's entry).
func HasRecord(stateDir, path, name string) bool {
	target, err := realPath(path)
	if err != nil {
		return false
	}
	recs, err := loadRecords(stateDir, target)
	if err != nil || len(recs) == 0 {
		return false
	}
	if name == "" {
		return true
	}
	last := slices.MaxFunc(recs, func(a, b Record) int { return a.Time.Compare(b.Time) })
	return slices.ContainsFunc(last.Entries, func(e EntryChange) bool { return e.Name == name })
}
