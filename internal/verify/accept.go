package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Accept is the review of `lock --accept KIND` (locker.Review): before
// re-locked entries are written, it writes to w each entry's changes
// against f (the diff verify prints, coloured when colour), and returns the
// refusal, naming what to run, when a definitional change of any entry is
// labelled other than kind (nil: the write may go ahead).
func Accept(w io.Writer, colour bool, path, kind string, f *lockfile.File, entries map[string]*lockfile.Server) error {
	var blocked, next []string
	for _, c := range locker.Review(f, entries) {
		n := termtext.ShellArg(c.Name)
		if len(c.Findings) == 0 {
			fmt.Fprintf(w, "same   %s: no change\n", n)
			continue
		}
		status := "accept"
		if len(c.Refused) > 0 {
			var why []string
			for _, fd := range c.Refused {
				why = append(why, What(fd)+" ["+strings.Join(fd.Labels, ", ")+"]")
			}
			status = "REFUSE"
			blocked = append(blocked, fmt.Sprintf("%s: %s", n, strings.Join(why, "; ")))
			next = append(next, fmt.Sprintf("mcpsum lock --lockfile %s --name %s", termtext.ShellArg(path), n))
		}
		fmt.Fprintf(w, "%-6s %s:\n", status, n)
		WriteFindings(w, colour, c.Locked, c.Now, c.Findings)
	}
	if len(blocked) == 0 {
		return nil
	}
	return fmt.Errorf("lock --accept %s: nothing was written: not every change is %s:\n  %s\nreview the changes above; to take them in, re-lock without --accept:\n  %s", kind, kind, strings.Join(blocked, "\n  "), strings.Join(next, "\n  "))
}
