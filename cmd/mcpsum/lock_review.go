package main

import (
	"fmt"
	"slices"

	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

// printLockWarnings prints, after a lock, what show would flag in the new
// entries: code-loading variables, machine-specific paths in the command,
// risky sandbox write paths and look-alike names. The lock is written anyway:
// these are for the reviewer.
func (a *app) printLockWarnings(path string, entries map[string]*lockfile.Server) {
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
		for _, k := range kindOrder {
			raw, _ := kindItems(e, k.kind)
			var keys []string
			for _, r := range raw {
				key, err := lockfile.ItemKey(k.kind, r)
				if err != nil {
					continue
				}
				keys = append(keys, key)
				for _, why := range lookalike.Check(key) {
					fmt.Fprintf(a.stderr, "lock: warning: %s: %s %+q %s\n", n, k.kind, key, why)
				}
			}
			for _, c := range lookalike.Collisions(keys) {
				fmt.Fprintf(a.stderr, "lock: warning: %s: %s %s\n", n, k.plural, c)
			}
		}
	}
}
