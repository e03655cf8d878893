package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Accept is the review of a re-lock (locker.Review): before re-locked
// entries are written, it writes to w what each entry changes against f,
// as verify does (a summary counted by label and server, the changes
// indexed by label, then in full), coloured when colour. With kind
// (`lock --accept descriptive`) it returns the refusal, naming what to
// run, when a definitional change of any entry is labelled other than
// kind (nil: the write may go ahead). Without kind (a plain re-lock) it
// only says what the lock takes in: nothing else would show a change to a
// lock that is not under version control.
func Accept(w io.Writer, colour bool, path, kind string, f *lockfile.File, entries map[string]*lockfile.Server) error {
	c := colours(colour)
	var blocked, next, lines []string
	var all []Changes
	changed := 0
	for _, ch := range locker.Review(f, entries) {
		n := termtext.ShellArg(ch.Name)
		if len(ch.Findings) == 0 {
			lines = append(lines, fmt.Sprintf("same   %s: no change", n))
			continue
		}
		changed++
		all = append(all, Changes{Name: ch.Name, Locked: ch.Locked, Observed: ch.Now, Findings: ch.Findings})
		status := "took"
		if kind != "" {
			status = "accept"
		}
		if kind != "" && len(ch.Refused) > 0 {
			var why []string
			for _, fd := range ch.Refused {
				why = append(why, What(fd)+" ["+strings.Join(fd.Labels, ", ")+"]")
			}
			status = c.red + "REFUSE" + c.reset
			blocked = append(blocked, fmt.Sprintf("%s: %s", n, strings.Join(why, "; ")))
			next = append(next, fmt.Sprintf("mcpsum lock --lockfile %s --name %s", termtext.ShellArg(path), n))
		}
		lines = append(lines, fmt.Sprintf("%-6s %s: %s", status, n, countLine(ch.Findings)))
		if review.DataResources(ch.Findings, ch.Locked, ch.Now) {
			lines = append(lines, fmt.Sprintf("%-6s %s: %s", "hint", n, review.UnpinnedHint(ch.Name, path)))
		}
	}
	if changed == 0 && kind == "" {
		return nil // nothing taken in: the lock's write says the rest
	}
	what := "takes in"
	if kind != "" {
		what = "--accept " + kind + " reviews"
	}
	fmt.Fprintf(w, "lock %s %s: %s changed, %d the same\n", quoteArg(path), what, plural(changed, "server"), len(entries)-changed)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	writeIndex(w, c, all)
	writeDetails(w, c, all)
	if len(blocked) == 0 {
		return nil
	}
	return fmt.Errorf("lock --accept %s: nothing was written: not every change is %s:\n  %s\nreview the changes above; to take them in, re-lock without --accept:\n  %s", kind, kind, strings.Join(blocked, "\n  "), strings.Join(next, "\n  "))
}
