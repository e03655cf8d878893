package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/review"
	"github.com/mcpsum/mcpsum/pkg/verify"
)

// acceptKinds are the values --accept takes: the drift labels a re-lock may
// take in without a full review.
var acceptKinds = []string{review.Descriptive}

// acceptOnly is lock --accept: before re-locked entries are written, it
// prints each entry's changes against the lock (the diff verify prints) and
// refuses, writing nothing, when a definitional change of any entry is
// labelled other than --accept's kind. Informational changes (serverInfo,
// capabilities, versions) are shown and taken in, as every re-lock does.
func (a *app) acceptOnly(path string, f *lockfile.File, entries map[string]*lockfile.Server) error {
	if a.accept == "" {
		return nil
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	var blocked, next []string
	for _, n := range names {
		locked, now := f.Servers[n], entries[n]
		fs := lockfile.Compare(locked, now)
		review.Label(fs, locked, now)
		if len(fs) == 0 {
			fmt.Fprintf(a.stdout, "same   %s: no change\n", quoteArg(n))
			continue
		}
		var why []string
		for _, fd := range fs {
			if fd.Class == lockfile.Definitional && !review.OnlyDescriptive(fd.Labels) {
				why = append(why, verify.What(fd)+" ["+strings.Join(fd.Labels, ", ")+"]")
			}
		}
		status := "accept"
		if len(why) > 0 {
			status = "REFUSE"
			blocked = append(blocked, fmt.Sprintf("%s: %s", quoteArg(n), strings.Join(why, "; ")))
			next = append(next, fmt.Sprintf("mcpsum lock --lockfile %s --name %s", quoteArg(path), quoteArg(n)))
		}
		fmt.Fprintf(a.stdout, "%-6s %s:\n", status, quoteArg(n))
		verify.WriteFindings(a.stdout, isTerminal(a.stdout), locked, now, fs)
	}
	if len(blocked) == 0 {
		return nil
	}
	return verdict(fmt.Errorf("lock --accept %s: nothing was written: not every change is %s:\n  %s\nreview the changes above; to take them in, re-lock without --accept:\n  %s", a.accept, a.accept, strings.Join(blocked, "\n  "), strings.Join(next, "\n  ")))
}
