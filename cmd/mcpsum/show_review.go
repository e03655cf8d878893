package main

import (
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/internal/lookalike"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

// review is what show adds to each server beyond the lock's own content: the
// program its command runs here (the one rule of pkg/pin: working directory =
// the lockfile's folder), warnings about the entry (code-loading variables,
// machine-specific paths, risky sandbox write paths) and names that look like
// other names.
type review struct {
	Program      string `json:"program,omitempty"`
	ProgramError string `json:"programError,omitempty"`
	WorkDir      string `json:"workDir,omitempty"`
	// SandboxTmp: sandboxed with the lockfile's folder outside its view, so
	// the server runs in its private ${TMP} instead.
	SandboxTmp bool     `json:"runsInSandboxTmp,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Lookalikes []string `json:"lookalikes,omitempty"`
}

// reviewShow fills each server's review.
func reviewShow(v *showFile, f *lockfile.File, lockPath string) {
	serverNames := make([]string, 0, len(f.Servers))
	for n := range f.Servers {
		serverNames = append(serverNames, n)
	}
	fileLevel := lookalike.Collisions(serverNames)
	for _, n := range v.order {
		s, ss := f.Servers[n], v.Servers[n]
		r := &review{}
		if !s.Remote() {
			r.WorkDir, _ = pin.WorkDir(lockPath)
			r.SandboxTmp = !pin.SandboxSeesWorkDir(s, lockPath)
			if p, err := pin.Program(s, lockPath); err != nil {
				r.ProgramError = err.Error()
			} else {
				r.Program = p
			}
		}
		r.Warnings = pin.Warnings(s, lockPath)
		r.Lookalikes = append(r.Lookalikes, nameFlags("server", n)...)
		for _, c := range fileLevel {
			r.Lookalikes = append(r.Lookalikes, "server names "+c)
		}
		for _, k := range kindOrder {
			var keys []string
			for _, it := range ss.Items[k.plural] {
				keys = append(keys, it.Key)
				r.Lookalikes = append(r.Lookalikes, nameFlags(k.kind, it.Key)...)
			}
			for _, c := range lookalike.Collisions(keys) {
				r.Lookalikes = append(r.Lookalikes, k.plural+" "+c)
			}
		}
		ss.Review = r
	}
}

func nameFlags(kind, name string) []string {
	var out []string
	for _, why := range lookalike.Check(name) {
		out = append(out, fmt.Sprintf("%s %+q: %s", kind, name, why))
	}
	return out
}

// printProgram prints where the command runs and which file it starts.
func printProgram(w io.Writer, s *showServer) {
	r := s.Review
	if r == nil {
		return
	}
	if r.ProgramError != "" {
		fmt.Fprintf(w, "  program       not found here: %s\n", oneLine(r.ProgramError, 300))
	} else {
		fmt.Fprintf(w, "  program       %s\n", quoteArg(r.Program))
	}
	if r.SandboxTmp {
		fmt.Fprintf(w, "  runs in       its sandbox's private ${TMP} (the lockfile's folder %s is not in the sandbox's view)\n", quoteArg(r.WorkDir))
		return
	}
	fmt.Fprintf(w, "  runs in       %s (the lockfile's folder)\n", quoteArg(r.WorkDir))
}

// printReview prints the warnings and look-alike names of a server.
func printReview(w io.Writer, s *showServer) {
	r := s.Review
	if r == nil {
		return
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", oneLine(x, 400))
	}
	for _, x := range r.Lookalikes {
		// Built only from fixed text and %+q renderings (ASCII escapes):
		// printed as is, so "\u0435cho" reads as written.
		fmt.Fprintf(w, "  !! look-alike: %s\n", x)
	}
}
