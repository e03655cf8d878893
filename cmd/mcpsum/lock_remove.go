package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// removeEntry deletes the entry name from the lockfile at path, under the
// lockfile's lock. A broken entry (one that no longer matches its digests)
// can be removed too: every other entry must be valid.
func (a *app) removeEntry(path, name string) error {
	if _, err := lockfile.ReadFile(path); errors.Is(err, fs.ErrNotExist) {
		return noLockfile(path, name)
	}
	found := false
	discarded, err := lockfile.UpdateDiscarding(path, name, func(f *lockfile.File) error {
		if _, ok := f.Servers[name]; ok {
			found = true
			delete(f.Servers, name)
			f.Generator = "mcpsum " + moduleVersion()
			return nil
		}
		return nil
	})
	if err != nil {
		return err
	}
	if discarded != nil {
		found = true
	}
	if !found {
		f, err := lockfile.Load(path)
		if err != nil {
			return err
		}
		if len(f.Servers) == 0 {
			return usageErr("no server %s in %s (it has no servers)", quoteArg(name), path)
		}
		return usageErr("no server %s in %s (locked: %s)", quoteArg(name), path, strings.Join(sortedNames(f), ", "))
	}
	fmt.Fprintf(a.stderr, "lock: removed %s from %s\n", quoteArg(name), path)
	return nil
}
