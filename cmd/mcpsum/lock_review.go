package main

import (
	"fmt"
	"slices"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/review"
)

// printLockWarnings prints, after a lock, what show would flag in the new
// entries: code-loading variables, machine-specific paths in the command,
// risky sandbox write paths, look-alike names, and the shadowing between
// them and the lock's other servers. The lock is written anyway (unless
// --strict refused the shadowing): these are for the reviewer.
func (a *app) printLockWarnings(path string, entries map[string]*lockfile.Server, shadows []review.Shadow) {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		e := entries[n]
		for _, w := range pin.Warnings(e, path) {
			fmt.Fprintf(a.stderr, "lock: warning: %s: %s\n", n, w)
		}
		for _, l := range review.Lookalikes(e) {
			fmt.Fprintf(a.stderr, "lock: warning: %s: %s\n", n, l)
		}
	}
	for _, s := range shadows {
		fmt.Fprintf(a.stderr, "lock: warning: shadowing: %s\n", s)
	}
}

// shadowsOf lists the shadowing in f that involves the entries being
// written.
func (a *app) shadowsOf(f *lockfile.File, entries map[string]*lockfile.Server) []review.Shadow {
	return review.Shadowing(f.Servers, func(n string) bool { _, ok := entries[n]; return ok })
}

// strictShadows is the verdict of --strict (lock, import) on shadowing:
// any finding refuses the write, naming each. Without --strict, nil.
func (a *app) strictShadows(shadows []review.Shadow) error {
	if !a.strictShadow || len(shadows) == 0 {
		return nil
	}
	msg := fmt.Sprintf("--strict: %d shadowing finding(s) between servers; nothing was written:", len(shadows))
	for _, s := range shadows {
		msg += "\n  shadowing: " + s.String()
	}
	return verdict(fmt.Errorf("%s\nkeep only one of the servers concerned, or lock without --strict to record them as warnings", msg))
}
