package clientconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonc"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// UndoOptions say what Undo puts back.
type UndoOptions struct {
	StateDir string    // where Write recorded its backups
	Now      time.Time // records stamped after it (a clock set back) are ignored
	// Name, when set, puts back only that entry of the last write (a
	// per-entry undo); the others stay recorded for a later undo.
	Name string
}

// UndoResult says what Undo did.
type UndoResult struct {
	Backup string // the backup of the write undone
	// Whole: the file held exactly what mcpsum wrote and got the backup's
	// bytes back. Otherwise (the client rewrote its file since, or Name was
	// given) only the entries in Restored got their command and args back,
	// every other byte kept; Left are those changed since, left as they are.
	Whole          bool
	Restored, Left []EntryChange
	// Ignored says which files named like backups, or records, were not
	// used, and why.
	Ignored []string
	// NothingLeft: no record of a write and no entry that runs mcpsum
	// proxy (a second undo); nothing was changed (set by importer.Undo).
	NothingLeft bool
}

// NoRecordError: mcpsum has no record of writing the config (and no file
// named like its backups is beside it).
type NoRecordError struct{ Path string }

func (e *NoRecordError) Error() string {
	return fmt.Sprintf("mcpsum has no record of writing %s: nothing to undo", e.Path)
}

// futureSkew is how far in the future a record's stamp may be (clocks of
// one machine; anything later is not a write this machine made so far).
const futureSkew = 5 * time.Minute

// Undo undoes the last recorded write of the config at path. A file beside
// it named like a backup that no record names (a cloned repository can ship
// one) is never used; the result names it.
func Undo(path string, o UndoOptions) (*UndoResult, error) {
	target, err := realPath(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no client config at %s: nothing to undo", path)
	}
	if err != nil {
		return nil, err
	}
	recs, err := loadRecords(o.StateDir, target)
	if err != nil {
		return nil, err
	}
	res := &UndoResult{}
	var usable []Record
	for _, r := range recs {
		if r.Time.After(o.Now.Add(futureSkew)) {
			res.Ignored = append(res.Ignored, fmt.Sprintf("the record of backup %s is dated %s, in the future: not used", r.Backup, r.Time.Format(time.RFC3339)))
			continue
		}
		usable = append(usable, r)
	}
	files, _ := Backups(target)
	var planted []string
	for _, f := range files {
		if !slices.ContainsFunc(recs, func(r Record) bool { return r.Backup == f }) {
			planted = append(planted, f)
			res.Ignored = append(res.Ignored, fmt.Sprintf("%s is named like an mcpsum backup, but mcpsum has no record of making it (a cloned repository can ship one): not used; remove it", f))
		}
	}
	if len(recs) == 0 && len(planted) == 0 {
		return res, &NoRecordError{Path: path}
	}
	if len(usable) == 0 {
		msg := fmt.Sprintf("mcpsum has no record of writing %s: nothing to undo", path)
		if len(recs) > 0 {
			msg = fmt.Sprintf("mcpsum's records of writing %s are all dated in the future (the clock was set back?), so none is used: nothing to undo", path)
		}
		if len(planted) > 0 {
			shown := planted
			if len(shown) > 3 {
				shown = append(shown[:3:3], fmt.Sprintf("and %d more", len(planted)-3))
			}
			msg += fmt.Sprintf("; mcpsum did not make %s, though named like its backups (a cloned repository can ship such files), so they were not used: remove them", strings.Join(shown, ", "))
		}
		return res, fmt.Errorf("%s", msg)
	}
	slices.SortStableFunc(usable, func(a, b Record) int { return a.Time.Compare(b.Time) })
	rec := usable[len(usable)-1]
	res.Backup = rec.Backup
	cur, err := ReadFile(target)
	if err != nil {
		return res, err
	}
	if o.Name == "" && sum(cur) == rec.WrittenSum {
		return res, restoreWhole(o.StateDir, target, cur, rec, res)
	}
	return res, restoreEntries(o, path, target, cur, rec, res)
}

// restoreWhole puts the backup's bytes back.
func restoreWhole(stateDir, target string, cur []byte, rec Record, res *UndoResult) error {
	// A backup is a file mcpsum wrote: a link in its place is not followed.
	old, err := safeio.ReadOwn(rec.Backup, "backup", MaxConfig)
	if err != nil {
		return fmt.Errorf("backup %s: %w", rec.Backup, err)
	}
	if sum(old) != rec.BackupSum {
		return fmt.Errorf("backup %s no longer holds what mcpsum saved there (it was changed); nothing was restored", rec.Backup)
	}
	if err := replace(target, cur, old, nil); err != nil {
		return err
	}
	res.Whole = true
	removeBackup(stateDir, target, rec.Backup)
	return nil
}

// restoreEntries puts back the command and args of the entries rec changed
// (or just o.Name), keeping every other byte of the file as it is now.
func restoreEntries(o UndoOptions, path, target string, cur []byte, rec Record, res *UndoResult) error {
	c, ok := Lookup(rec.Client)
	if !ok || c.Format == TOML {
		return fmt.Errorf("%s changed after mcpsum wrote it, so undo would lose those changes; nothing was restored. Compare it with the backup yourself: diff %s %s", path, rec.Backup, path)
	}
	cfg, err := Parse(target, cur, c, Location{Base: Home})
	if err != nil {
		return fmt.Errorf("%w; nothing was restored", err)
	}
	argv, texts := map[Key][]string{}, map[Key]string{}
	var keep []EntryChange
	for _, ch := range rec.Entries {
		if o.Name != "" && ch.Name != o.Name {
			keep = append(keep, ch)
			continue
		}
		i := slices.IndexFunc(cfg.Entries, func(e Entry) bool { return e.Key() == Key{ch.Scope, ch.Name} })
		if i >= 0 && ch.AfterText != "" {
			if cfg.Entries[i].EntryText(cur) == ch.AfterText && ch.BeforeText != "" {
				texts[Key{ch.Scope, ch.Name}] = ch.BeforeText // an entry pointed at mcpsum serve: its whole text
				res.Restored = append(res.Restored, ch)
			} else {
				res.Left = append(res.Left, ch)
			}
		} else if i >= 0 && slices.Equal(cfg.Entries[i].Argv, ch.After) && ch.BeforeText != "" {
			texts[Key{ch.Scope, ch.Name}] = ch.BeforeText // a remote entry: its whole text
			res.Restored = append(res.Restored, ch)
		} else if i >= 0 && slices.Equal(cfg.Entries[i].Argv, ch.After) {
			argv[Key{ch.Scope, ch.Name}] = ch.Before
			res.Restored = append(res.Restored, ch)
		} else {
			res.Left = append(res.Left, ch)
		}
	}
	if o.Name != "" && len(res.Restored)+len(res.Left) == 0 {
		var names []string
		for _, ch := range rec.Entries {
			names = append(names, ch.Name)
		}
		return fmt.Errorf("the last write of %s did not change a server %s (it changed: %s); nothing was restored", path, o.Name, strings.Join(names, ", "))
	}
	if len(argv)+len(texts) == 0 {
		return fmt.Errorf("%s changed after mcpsum wrote it and no entry mcpsum changed still runs what mcpsum wrote, so there is nothing to put back without losing those changes; nothing was restored. Compare it with the backup yourself: diff %s %s", path, rec.Backup, path)
	}
	data, err := putBack(cfg, argv, texts)
	if err != nil {
		return err
	}
	if err := replace(target, cur, data, nil); err != nil {
		return err
	}
	if len(keep) == 0 {
		removeBackup(o.StateDir, target, rec.Backup)
		return nil
	}
	rec.Entries = keep
	return replaceRecord(o.StateDir, target, rec)
}

func removeBackup(stateDir, target, backup string) {
	_ = dropRecord(stateDir, target, backup)
	_ = os.Remove(backup)
}

// putBack gives the entries in argv their command lines back, then the
// entries in texts (remote ones, and those pointed at mcpsum serve) their
// whole text; each must read back as exactly that text.
func putBack(cfg *Config, argv map[Key][]string, texts map[Key]string) ([]byte, error) {
	data := cfg.Src
	if len(argv) > 0 {
		var err error
		if data, _, err = cfg.Rewrite(argv); err != nil {
			return nil, err
		}
	}
	if len(texts) == 0 {
		return data, nil
	}
	now, err := Parse(cfg.Path, data, cfg.Client, cfg.Location)
	if err != nil {
		return nil, err
	}
	var edits []jsonc.Edit
	for _, e := range now.Entries {
		if t, ok := texts[e.Key()]; ok && e.at.value != nil {
			edits = append(edits, jsonc.Edit{Start: e.at.value.Start, End: e.at.value.End, Text: t})
		}
	}
	out, err := jsonc.Apply(data, edits)
	if err != nil {
		return nil, err
	}
	again, err := Parse(cfg.Path, out, cfg.Client, cfg.Location)
	if err != nil {
		return nil, fmt.Errorf("%s: the restored remote entries do not read back (nothing restored): %w", cfg.Path, err)
	}
	for _, e := range again.Entries {
		if t, ok := texts[e.Key()]; ok && e.EntryText(out) != t {
			return nil, fmt.Errorf("%s: server %q does not read back as the entry it was (nothing restored)", cfg.Path, e.Name)
		}
	}
	return out, nil
}
