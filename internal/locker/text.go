package locker

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// ProgressLine is the outcome of one server's lock in a run's progress
// (Progress): its error with each hint indented, or what it locked.
func ProgressLine(e *lockfile.Server, err error) string {
	if err != nil {
		return "FAILED  " + hint.Lines(err, "  ")
	}
	return fmt.Sprintf("ok      %s %s, %d tools, %d prompts, %d resources, %d templates",
		e.Era(), e.ProtocolVersion, len(e.Tools), len(e.Prompts), len(e.Resources), len(e.ResourceTemplates))
}

// WriteWritten writes to w, a "lock: " line each, what a merge into the
// lockfile at path noted, that it was written, then what show would flag
// in the new entries (Warnings) and shadows (review's shadowing between
// them and the lock's other servers), and for each entry whose package npx
// installs before its first start, which environment that install sees
// (launch.InstallSees). The lock is written anyway (unless Options.Strict
// refused the shadowing): the warnings are the reviewer's.
func WriteWritten(w io.Writer, path string, entries map[string]*lockfile.Server, wr *Written, shadows []review.Shadow) {
	for _, n := range wr.Notes {
		fmt.Fprintf(w, "lock: %s\n", n)
	}
	fmt.Fprintf(w, "lock: wrote %s\n", path)
	for _, s := range Warnings(path, entries) {
		fmt.Fprintf(w, "lock: warning: %s\n", s)
	}
	for _, s := range shadows {
		fmt.Fprintf(w, "lock: warning: shadowing: %s\n", s)
	}
	for _, n := range slices.Sorted(maps.Keys(entries)) {
		if l := launch.InstallSees(entries[n]); l != "" {
			fmt.Fprintf(w, "lock: %s: %s\n", termtext.ShellArg(n), l)
		}
	}
}
