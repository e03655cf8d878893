package main

import (
	"fmt"
	"io"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
	"github.com/mcpsum/mcpsum/pkg/review"
)

// review is what show adds to each server beyond the lock's own content: the
// program its command runs here (the one rule of pkg/pin: working directory =
// the lockfile's folder), warnings about the entry (code-loading variables,
// machine-specific paths, risky sandbox write paths) and names that look like
// other names, within the server and across the lock's servers
// (pkg/review).
type showReview struct {
	Program      string `json:"program,omitempty"`
	ProgramError string `json:"programError,omitempty"`
	WorkDir      string `json:"workDir,omitempty"`
	// SandboxTmp: sandboxed with the lockfile's folder outside its view, so
	// the server runs in its private ${TMP} instead.
	SandboxTmp bool     `json:"runsInSandboxTmp,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Lookalikes []string `json:"lookalikes,omitempty"`
	// Shadowing: this server's tools or prompts against another server's
	// of the same lock (same or look-alike names, text naming the other's
	// tools); each pair is listed under both servers.
	Shadowing []string `json:"shadowing,omitempty"`
}

// reviewShow fills each server's review, and returns how many shadowing
// findings involve the servers shown.
func reviewShow(v *showFile, f *lockfile.File, lockPath string) int {
	fileLevel := review.ServerNames(sortedNames(f))
	shadows := review.Shadowing(f.Servers, func(n string) bool { _, ok := v.Servers[n]; return ok })
	for _, n := range v.order {
		s, ss := f.Servers[n], v.Servers[n]
		r := &showReview{}
		r.WorkDir, _ = pin.WorkDir(lockPath)
		r.SandboxTmp = !pin.SandboxSeesWorkDir(s, lockPath)
		if p, err := pin.Program(s, lockPath); err != nil {
			r.ProgramError = err.Error()
		} else {
			r.Program = p
		}
		r.Warnings = pin.Warnings(s, lockPath)
		r.Lookalikes = append(r.Lookalikes, review.NameFlags("server", n)...)
		r.Lookalikes = append(r.Lookalikes, fileLevel...)
		r.Lookalikes = append(r.Lookalikes, review.Lookalikes(s)...)
		for _, sh := range shadows {
			if sh.Involves(n) {
				r.Shadowing = append(r.Shadowing, sh.Rule+": "+sh.String())
			}
		}
		ss.Review = r
	}
	return len(shadows)
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
	for _, x := range r.Shadowing {
		// Also built from fixed text and %+q renderings only.
		fmt.Fprintf(w, "  !! shadowing: %s\n", x)
	}
}
