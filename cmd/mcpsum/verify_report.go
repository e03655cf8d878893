package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/review"
)

// colours, used only when stdout is a terminal.
type palette struct{ red, yellow, green, dim, reset string }

func colours(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{"\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[2m", "\x1b[0m"}
}

func printVerify(w io.Writer, res *verifyResult, tty bool) {
	c := colours(tty)
	var drifted []string
	definitional := false
	for _, n := range res.order {
		s := res.Servers[n]
		name := quoteArg(n)
		switch s.Status {
		case "ok":
			fmt.Fprintf(w, "%sok%s     %s (%s %s, %.1fs)\n", c.green, c.reset, name, s.Era, s.ProtocolVersion, s.Seconds)
		case "error":
			fmt.Fprintf(w, "%sERROR%s  %s: could not verify: %s\n", c.red, c.reset, name, s.Error)
		case "drift":
			drifted, definitional = append(drifted, n), true
			fmt.Fprintf(w, "%sDRIFT%s  %s: the server no longer matches %s\n", c.red, c.reset, name, quoteArg(res.Lockfile))
		default:
			label := "note"
			if res.Strict {
				label, drifted = "DRIFT", append(drifted, n)
			}
			fmt.Fprintf(w, "%s%-6s%s %s: informational changes only\n", c.yellow, label, c.reset, name)
		}
		for _, fd := range s.findings {
			printFinding(w, c, n, s, fd)
		}
		if len(s.Unpinned) > 0 {
			fmt.Fprintf(w, "%snote%s   %s: %s not pinned (policy.unpinned declares them data): %s\n", c.dim, c.reset, name, strings.Join(s.Unpinned, " and "), dataSummary(s.DataChanges))
		}
	}
	printShadowing(w, c, res)
	if len(drifted) > 0 {
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
		lf := " --lockfile " + quoteArg(res.Lockfile) // every suggested command names the lockfile it was about
		for _, n := range drifted {
			fmt.Fprintf(w, "  mcpsum show%s --name %s   # review: what was locked, in full\n", lf, quoteArg(n))
		}
		for _, n := range drifted {
			if wordingOnly(res.Servers[n].findings) {
				fmt.Fprintf(w, "  mcpsum lock%s --name %s --accept descriptive   # accept: every change is wording; refused if the server changed more meanwhile\n", lf, quoteArg(n))
				continue
			}
			fmt.Fprintf(w, "  mcpsum lock%s --name %s   # accept: pin what the server serves now\n", lf, quoteArg(n))
		}
		fmt.Fprintf(w, "  git diff %s   # then check the lock's change before committing it\n", quoteArg(res.Lockfile))
	}
}

func printFinding(w io.Writer, c palette, server string, s *serverResult, fd lockfile.Finding) {
	col := c.yellow
	if fd.Class == lockfile.Definitional {
		col = c.red
	}
	what := fd.Kind
	if fd.Name != "" {
		q, _ := quoteText(fd.Name)
		what += " " + `"` + q + `"`
	}
	fmt.Fprintf(w, "  %s%s%s %s %s", col, fd.Class, c.reset, what, fd.Change)
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
	if fd.Change == lockfile.Added && s.observed != nil {
		if raw := s.observed.Find(fd.Kind, fd.Name); raw != nil {
			printItemFull(w, "      ", fd.Kind, raw)
		}
	}
	if fd.Change != lockfile.Changed {
		return
	}
	switch fd.Kind {
	case lockfile.KindInstructions:
		printDiff(w, c, textOf(s.locked.Instructions), textOf(s.observed.Instructions))
	case lockfile.KindTool, lockfile.KindPrompt, lockfile.KindResource, lockfile.KindResourceTemplate:
		old := fieldsOf(s.locked.Find(fd.Kind, fd.Name))
		cur := fieldsOf(s.observed.Find(fd.Kind, fd.Name))
		for _, field := range fd.Fields {
			fmt.Fprintf(w, "      %s:\n", field)
			printDiff(w, c, renderField(old[field]), renderField(cur[field]))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func textOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func fieldsOf(raw json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(raw, &m)
	return m
}

// renderField is a field's value as text to diff: a string as itself, any
// other JSON indented.
func renderField(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}

// printDiff prints a line diff of old and cur, every line escaped.
func printDiff(w io.Writer, c palette, old, cur string) {
	// Never cut: what is not shown is not reviewed.
	lines := lineDiff(splitLines(old), splitLines(cur))
	for _, l := range lines {
		if l.op == ' ' {
			continue
		}
		q, sus := quoteText(l.text)
		col := c.green
		if l.op == '-' {
			col = c.red
		}
		flag := ""
		if sus {
			flag = "   !! SUSPICIOUS characters"
		}
		fmt.Fprintf(w, "        %s%c %s%s%s\n", col, l.op, q, c.reset, flag)
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// lineDiff is a longest-common-subsequence line diff; inputs are bounded by
// what a lock holds, so the quadratic table is fine. Very long inputs fall
// back to "all removed, all added".
func lineDiff(a, b []string) []diffLine {
	if len(a)*len(b) > 4_000_000 {
		var out []diffLine
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
		return out
	}
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}

// verifySignature checks a Sigstore bundle over the lockfile's exact bytes.
func (a *app) verifySignature(ctx context.Context, lockPath string, s sigFlags) error {
	r, _, err := s.check(ctx, lockPath)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "ok     %s (%s) is signed by %s; its digests match\n", lockPath, r.Digest, describeSigner(r))
	return nil
}

// printShadowing lists the shadowing between the lock's servers: a warning,
// a failure with --strict.
func printShadowing(w io.Writer, c palette, res *verifyResult) {
	if len(res.Shadowing) == 0 {
		return
	}
	label, col := "SHADOW", c.yellow
	if res.Strict {
		col = c.red
	}
	for _, sh := range res.Shadowing {
		// Message: fixed text and %+q renderings only.
		fmt.Fprintf(w, "%s%s%s %s: %s\n", col, label, c.reset, sh.Rule, sh.Message)
	}
	if !res.Strict {
		fmt.Fprintln(w, "  (shadowing is a warning; verify --strict fails on it. mcpsum show lists it under each server)")
		return
	}
	fmt.Fprintln(w, "  (--strict: shadowing fails verify. mcpsum show lists it under each server)")
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

// dataSummary says how the kinds declared data changed since the lock
// (counts only: the names are the server's, and the list is its data).
func dataSummary(changes []findingJSON) string {
	if len(changes) == 0 {
		return "as locked"
	}
	n := map[string]int{}
	for _, fd := range changes {
		n[fd.Change]++
	}
	var parts []string
	for _, ch := range []string{lockfile.Added, lockfile.Removed, lockfile.Changed} {
		if n[ch] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[ch], ch))
		}
	}
	return "changed since the lock (" + strings.Join(parts, ", ") + "), not drift"
}
