package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/hint"
)

// DetectError is a config FILE whose client could not be told from its
// name or content: the user names it with --client.
type DetectError struct{ Err error }

func (e *DetectError) Error() string { return e.Err.Error() }
func (e *DetectError) Unwrap() error { return e.Err }

// ReadConfigs reads FILE, or every config file of client that exists.
func ReadConfigs(dirs clientconfig.Dirs, client *clientconfig.Client, file string) ([]*clientconfig.Config, error) {
	if file != "" {
		src, err := clientconfig.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, hint.Errorf("'mcpsum import' lists the client configs found here (or name one with --client NAME)", "no client config at %s", file)
		}
		if err != nil {
			return nil, err
		}
		c, loc := client, clientconfig.Location{Base: clientconfig.Home}
		if c == nil {
			if c, loc, err = clientconfig.Detect(file, src, dirs.Project); err != nil {
				return nil, &DetectError{err}
			}
		} else if _, l, err := clientconfig.Detect(file, src, dirs.Project); err == nil && l.Project() {
			loc = l
		}
		cfg, err := clientconfig.Parse(file, src, c, loc)
		if err != nil {
			return nil, err
		}
		cfg.Shared = cfg.Shared || clientconfig.IsProjectFile(file, dirs.Home)
		return []*clientconfig.Config{cfg}, nil
	}
	found := clientconfig.Find(dirs, client)
	if len(found) == 0 {
		return nil, hint.Errorf("give the config file's path instead: mcpsum import FILE",
			"no %s config found (looked in %s)", client.Title, strings.Join(dirs.Paths(client), ", "))
	}
	var out []*clientconfig.Config
	for _, f := range found {
		cfg, err := clientconfig.Read(f.Path, f.Client, f.Location)
		if err != nil {
			return nil, err
		}
		out = append(out, cfg)
	}
	return out, nil
}

// Summary says what a config holds as import --client would see it:
// "2 lockable, 1 disabled, 1 remote", and the other projects' count.
func Summary(dirs clientconfig.Dirs, cfg *clientconfig.Config) string {
	counts := map[clientconfig.Status]int{}
	disabled, others := 0, 0
	here := RealAbs(dirs.Project)
	for _, e := range cfg.Entries {
		if e.Scope != "" && RealAbs(e.Scope) != here {
			others++ // another project's: import leaves it out
			continue
		}
		st := e.Status
		if st == clientconfig.Lockable && Unimportable(e, nil, "") != "" {
			st = clientconfig.Invalid // as import --client would say
		}
		if (st == clientconfig.Lockable || st == clientconfig.Remote && e.Endpoint.Refused == "") && e.Disabled {
			disabled++ // import skips it unless --include-disabled
			continue
		}
		counts[st]++
	}
	var parts []string
	for _, s := range []clientconfig.Status{clientconfig.Lockable, clientconfig.Wrapped, clientconfig.Interpolated, clientconfig.Remote, clientconfig.Extension, clientconfig.Invalid} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
		if s == clientconfig.Lockable && disabled > 0 {
			parts = append(parts, fmt.Sprintf("%d disabled", disabled))
		}
	}
	if len(parts) == 0 {
		parts = []string{"no servers"}
	}
	if others > 0 {
		parts = append(parts, fmt.Sprintf("(and %d of other projects, left out here)", others))
	}
	return strings.Join(parts, ", ")
}

// nothingLeft: the configs (of client, or file) are there and no entry of
// them runs mcpsum proxy (name: no entry of that name does); paths names them.
func nothingLeft(dirs clientconfig.Dirs, client *clientconfig.Client, file, name string) (paths []string, ok bool) {
	cfgs, err := ReadConfigs(dirs, client, file)
	if err != nil || len(cfgs) == 0 {
		return nil, false
	}
	for _, cfg := range cfgs {
		paths = append(paths, q(cfg.Path))
		for _, e := range cfg.Entries {
			if e.Status == clientconfig.Wrapped && (name == "" || e.Name == name) {
				return nil, false
			}
		}
	}
	return paths, true
}

func none(_ []string, ok bool) bool { return ok }

// UndoFiles are the configs of client that an undo (of entry name, if
// set) reads: those mcpsum recorded a write of; failing that, those with
// files named like backups, so Undo says why it does not use them.
func UndoFiles(dirs clientconfig.Dirs, client *clientconfig.Client, stateDir, name string) ([]string, error) {
	var files, unrecorded []string
	for _, f := range clientconfig.Find(dirs, client) {
		if clientconfig.HasRecord(stateDir, f.Path, name) {
			files = append(files, f.Path)
		} else if b, _ := clientconfig.Backups(f.Path); len(b) > 0 {
			unrecorded = append(unrecorded, f.Path)
		}
	}
	if len(files) == 0 {
		files = unrecorded
	}
	if len(files) == 0 {
		what := "an mcpsum --write"
		if name != "" {
			what = "an mcpsum --write that changed " + q(name)
		}
		return nil, fmt.Errorf("no %s config has a record of %s (records are kept in %s): nothing to undo", client.Title, what, q(stateDir))
	}
	return files, nil
}

// Undo undoes the last --write of file or, when file is "", of each config
// of client that mcpsum wrote (UndoFiles; name: only that server's entry).
// done hears each config's outcome but the first failure, which Undo
// returns once every config has been tried. When mcpsum has no record of a
// write and no entry runs mcpsum proxy (a second --undo), there is nothing
// left to undo: done hears a result with NothingLeft, and Undo returns nil.
func Undo(dirs clientconfig.Dirs, client *clientconfig.Client, file, name, stateDir string, done func(path string, res *clientconfig.UndoResult, err error)) error {
	files := []string{file}
	if file == "" {
		var err error
		if files, err = UndoFiles(dirs, client, stateDir, name); err != nil {
			if paths, ok := nothingLeft(dirs, client, "", name); ok {
				done(strings.Join(paths, ", "), &clientconfig.UndoResult{NothingLeft: true}, nil)
				return nil
			}
			return err
		}
	}
	var firstErr error
	for _, p := range files {
		res, err := clientconfig.Undo(p, clientconfig.UndoOptions{StateDir: stateDir, Now: time.Now(), Name: name})
		if nr := (*clientconfig.NoRecordError)(nil); errors.As(err, &nr) && none(nothingLeft(dirs, client, p, name)) {
			res.NothingLeft, err = true, nil
		}
		if err != nil && firstErr == nil {
			firstErr = err
			continue
		}
		done(p, res, err)
	}
	return firstErr
}
