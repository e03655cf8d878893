package locker

import (
	"fmt"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// lock --era ERA chooses the era of a new entry (launch.Options.Era). An
// entry keeps the era it was locked in (LOCKFILE.md, "Protocol era": verify
// and a re-lock ask it in its own era first; to move it, delete it and lock
// again), so --era never moves an existing entry to another era: lock
// refuses, naming the two commands that do it.

// EraConflict refuses to lock target as entry name of f (the lockfile at
// path as read; nil when there is none) in era ("" detects: no conflict)
// when that entry is locked in another era.
func EraConflict(f *lockfile.File, path, name string, target *lockfile.Server, era string) error {
	if f == nil || era == "" {
		return nil
	}
	old := f.Servers[name]
	if old == nil || old.Era() == era {
		return nil
	}
	return eraMove(path, name, old, target, era)
}

// eraMove is the refusal to move entry name (old) of the lockfile at path
// to era, with the commands that do it: remove, then lock target again.
func eraMove(path, name string, old, target *lockfile.Server, era string) error {
	remove := termtext.ShellArgs([]string{"mcpsum", "lock", "--lockfile", path, "--remove", name})
	again := launch.LockCommand(path, name, target, launch.EraFlag(era))
	steps := []string{"remove the entry: " + remove, "then lock it again: " + again}
	if old.Policy != nil {
		steps = []string{"copy the entry's policy section (removing the entry removes it), then remove the entry: " + remove,
			"then lock it again: " + again, "then put the policy section back into the new entry"}
	}
	return hint.Wrap(&UsageError{msg: fmt.Sprintf("--era %s: entry %q of %s is locked in the %s era, and lock moves no entry to another era (a server that speaks both keeps the era it was locked in): remove the entry and lock it again",
		launch.EraFlag(era), name, path, launch.EraFlag(old.Era()))}, steps...)
}

// relockEra is the answer to lock --era without a command or --url: a
// re-lock keeps each entry's era.
func relockEra(path, name string, era string) error {
	f, err := lockfile.Load(path)
	if name != "" && err == nil && f.Servers[name] != nil {
		old := f.Servers[name]
		if old.Era() == era {
			return usageHint("re-lock it without --era: "+termtext.ShellArgs([]string{"mcpsum", "lock", "--lockfile", path, "--name", name}),
				"--era applies to a new entry (a command after --, or --url); entry %q is locked in the %s era already, and a re-lock keeps it", name, launch.EraFlag(era))
		}
		return eraMove(path, name, old, old, era)
	}
	return usageErr("--era applies to a new entry: give its command after -- (or its --url) and --name; a re-lock keeps each entry's era")
}
