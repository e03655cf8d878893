package process

import (
	"fmt"
	"io"
)

// WriteProtections writes Protections for `mcpsum doctor` to w, one line
// each under a heading, and says whether all are in force.
func WriteProtections(w io.Writer) bool {
	lines, ok := Protections()
	fmt.Fprintln(w, "process protections (unsandboxed servers):")
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return ok
}
