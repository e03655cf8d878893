package locker

import (
	"slices"

	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// AcceptKinds are the kinds `lock --accept` takes: the drift labels a
// re-lock may take in without a full review.
var AcceptKinds = []string{review.Descriptive}

// Change is one re-locked entry against its locked self.
type Change struct {
	Name        string
	Locked, Now *lockfile.Server
	Findings    []lockfile.Finding // labelled (internal/review); none: no change
	// Refused are the definitional findings not of the accepted kind:
	// any one refuses the whole write.
	Refused []lockfile.Finding
}

// Review compares each re-locked entry with its entry in f, in name order,
// and says which definitional changes are not descriptive (only case,
// punctuation, reordering or deleted words: internal/review).
// Informational changes (serverInfo, capabilities, versions) are never
// refused: every re-lock takes them in.
func Review(f *lockfile.File, entries map[string]*lockfile.Server) []Change {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]Change, 0, len(names))
	for _, n := range names {
		c := Change{Name: n, Locked: f.Servers[n], Now: entries[n]}
		c.Findings = lockfile.Compare(c.Locked, c.Now)
		review.Label(c.Findings, c.Locked, c.Now)
		for _, fd := range c.Findings {
			if fd.Class == lockfile.Definitional && !review.OnlyDescriptive(fd.Labels) {
				c.Refused = append(c.Refused, fd)
			}
		}
		out = append(out, c)
	}
	return out
}
