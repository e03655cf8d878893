package verify

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/show"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

var (
	quoteArg = termtext.ShellArg
	oneLine  = termtext.FirstLine
)

// palette holds the colours of the text report, empty unless it goes to a
// terminal.
type palette struct{ red, yellow, green, dim, reset string }

func colours(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{"\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[2m", "\x1b[0m"}
}

// WriteText writes the report for a person. It starts with a summary: one
// line per server (its status and its changes counted by label), the
// changes indexed by label, most dangerous first, and the shadowing
// counted by pair of servers. Then every change in full, in the same
// order (what was locked and what the server serves now, added and changed
// items in full, escaped, diffs with context), the shadowing grouped by
// pair, and the commands that review or accept each drift. colour: the
// writer is a terminal.
func (r *Report) WriteText(w io.Writer, colour bool) {
	c := colours(colour)
	var drifted []string
	definitional := false
	var all []Changes
	n := map[string]int{}
	for _, s := range r.Servers {
		n[s.Status]++
	}
	fmt.Fprintf(w, "verify %s: %s: %s\n", quoteArg(r.Lockfile), plural(len(r.Servers), "server"), statusCounts(n, r.Strict))
	for _, s := range r.Servers {
		name := quoteArg(s.Name)
		switch s.Status {
		case StatusOK:
			fmt.Fprintf(w, "%sok%s     %s (%s %s, %.1fs)\n", c.green, c.reset, name, s.Locked.Era(), s.Locked.ProtocolVersion, s.seconds())
		case StatusError:
			fmt.Fprintf(w, "%sERROR%s  %s: could not verify: %s\n", c.red, c.reset, name, hint.Lines(s.Error, "  "))
		case StatusDrift:
			drifted, definitional = append(drifted, s.Name), true
			fmt.Fprintf(w, "%sDRIFT%s  %s: the server no longer matches %s: %s\n", c.red, c.reset, name, quoteArg(r.Lockfile), countLine(s.Findings))
			if h := s.dataHint(r.Lockfile); h != "" {
				fmt.Fprintf(w, "%shint%s   %s: %s\n", c.dim, c.reset, name, h)
			}
		default:
			label := "note"
			if r.Strict {
				label, drifted = "DRIFT", append(drifted, s.Name)
			}
			fmt.Fprintf(w, "%s%-6s%s %s: informational changes only: %s\n", c.yellow, label, c.reset, name, countLine(s.Findings))
		}
		if u := s.unpinned(); len(u) > 0 {
			fmt.Fprintf(w, "%snote%s   %s: %s not pinned (policy.unpinned declares them data): %s\n", c.dim, c.reset, name, strings.Join(u, " and "), s.dataSummary())
		}
		if len(s.Findings) > 0 {
			all = append(all, Changes{Name: s.Name, Locked: s.Locked, Observed: s.Observed, Findings: s.Findings})
		}
	}
	col := c.yellow
	if r.Strict {
		col = c.red
	}
	if len(r.Shadowing) > 0 {
		what := "a warning; verify --strict fails on it"
		if r.Strict {
			what = "--strict: it fails verify"
		}
		fmt.Fprintf(w, "%sSHADOW%s %s between servers (%s): %s\n", col, c.reset, plural(len(r.Shadowing), "shadowing finding"), what, shadowSummary(r.Shadowing))
	}
	writeIndex(w, c, all)
	writeDetails(w, c, all)
	if len(r.Shadowing) > 0 {
		fmt.Fprintf(w, "\n%s== shadowing (%d) ==%s\n", col, len(r.Shadowing), c.reset)
		writeShadowGroups(w, c, col, r.Shadowing)
		fmt.Fprintln(w, "  (mcpsum show lists it under each server)")
	}
	if len(drifted) > 0 {
		r.writeNext(w, drifted, definitional)
	}
}

// statusCounts is "2 drifted, 1 ok, 1 could not be checked".
func statusCounts(n map[string]int, strict bool) string {
	var parts []string
	if n[StatusDrift] > 0 {
		parts = append(parts, fmt.Sprintf("%d drifted", n[StatusDrift]))
	}
	if k := n[StatusInformational]; k > 0 {
		if strict {
			parts = append(parts, fmt.Sprintf("%d drifted (informational, --strict)", k))
		} else {
			parts = append(parts, fmt.Sprintf("%d with informational changes only", k))
		}
	}
	if n[StatusOK] > 0 {
		parts = append(parts, fmt.Sprintf("%d ok", n[StatusOK]))
	}
	if n[StatusError] > 0 {
		parts = append(parts, fmt.Sprintf("%d could not be checked", n[StatusError]))
	}
	if len(parts) == 0 {
		return "nothing checked"
	}
	return strings.Join(parts, ", ")
}

// writeNext writes what to do about the drifted servers: each command
// names the lockfile it is about.
func (r *Report) writeNext(w io.Writer, drifted []string, definitional bool) {
	fmt.Fprintln(w)
	if definitional {
		fmt.Fprintln(w, "This may be a tool-poisoning change (a \"rug pull\"): a server changed what it tells")
		fmt.Fprintln(w, "the model after it was reviewed. The new text is above, in full. Review it against")
		fmt.Fprintln(w, "what was locked, and accept it only if it is safe:")
	} else {
		fmt.Fprintln(w, "Only informational fields changed (serverInfo, capabilities, protocol versions),")
		fmt.Fprintln(w, "which --strict counts as drift; the tools, prompts, resources and instructions")
		fmt.Fprintln(w, "the model sees are as locked. If the change is expected, record it:")
	}
	lf := " --lockfile " + quoteArg(r.Lockfile)
	for _, n := range drifted {
		fmt.Fprintf(w, "  mcpsum show%s --name %s   # review: what was locked, in full\n", lf, quoteArg(n))
	}
	for _, s := range r.Servers {
		if !slices.Contains(drifted, s.Name) {
			continue
		}
		if wordingOnly(s.Findings) {
			fmt.Fprintf(w, "  mcpsum lock%s --name %s --accept descriptive   # accept: every change is wording; refused if the server changed more meanwhile\n", lf, quoteArg(s.Name))
			continue
		}
		fmt.Fprintf(w, "  mcpsum lock%s --name %s   # accept: pin what the server serves now\n", lf, quoteArg(s.Name))
	}
	if UnderGit(r.Lockfile) {
		fmt.Fprintf(w, "  git diff %s   # then check the lock's change before committing it\n", quoteArg(r.Lockfile))
		return
	}
	fmt.Fprintf(w, "  (%s is not under version control: the re-lock prints what it takes in, the same way as above)\n", quoteArg(r.Lockfile))
}

// UnderGit reports whether path lies in a git work tree (a .git folder or
// file in its folder or above).
func UnderGit(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		if filepath.Dir(dir) == dir {
			return false
		}
	}
}

// What is a finding's subject for one line: its kind and escaped name.
func What(fd lockfile.Finding) string {
	if fd.Name == "" {
		return fd.Kind
	}
	q, _ := termtext.Quote(fd.Name)
	return fd.Kind + ` "` + q + `"`
}

func writeFinding(w io.Writer, c palette, locked, observed *lockfile.Server, fd lockfile.Finding) {
	col := c.yellow
	if fd.Class == lockfile.Definitional {
		col = c.red
	}
	fmt.Fprintf(w, "  %s%s%s %s %s", col, fd.Class, c.reset, What(fd), fd.Change)
	if len(fd.Fields) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(fd.Fields, ", "))
	}
	if fd.Class == lockfile.Definitional {
		fmt.Fprintf(w, " [%s]", strings.Join(fd.Labels, ", "))
	}
	fmt.Fprintln(w)
	for _, why := range fd.Why {
		fmt.Fprintf(w, "      %s!!%s %s\n", col, c.reset, why) // fixed text and %+q renderings
	}
	switch fd.Kind {
	case lockfile.KindTool, lockfile.KindPrompt, lockfile.KindResource, lockfile.KindResourceTemplate, lockfile.KindInstructions:
		fmt.Fprintf(w, "      locked   %s\n      observed %s\n", orNone(fd.Locked), orNone(fd.Observed))
	default:
		fmt.Fprintf(w, "      locked   %s\n      observed %s\n", oneLine(orNone(fd.Locked), 160), oneLine(orNone(fd.Observed), 160))
	}
	if fd.Change == lockfile.Added && observed != nil {
		if raw := observed.Find(fd.Kind, fd.Name); raw != nil {
			show.WriteItem(w, "      ", fd.Kind, raw)
		}
	}
	if fd.Change == lockfile.Changed {
		writeChange(w, c, locked, observed, fd)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// wordingOnly reports whether every definitional finding is descriptive
// (and there is one).
func wordingOnly(fs []lockfile.Finding) bool {
	found := false
	for _, fd := range fs {
		if fd.Class != lockfile.Definitional {
			continue
		}
		if !review.OnlyDescriptive(fd.Labels) {
			return false
		}
		found = true
	}
	return found
}
