package importer

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
)

// The renderings of import's reports, written to the io.Writer the command
// hands in (its stdout).

// Show writes the events of Apply that import shows on its stdout
// (Nothing, DryRun, Rewriting, Rewrote) to w, and says whether e was one.
func (e Event) Show(w io.Writer) bool {
	switch e.Kind {
	case Nothing:
		fmt.Fprintln(w, "nothing to import")
	case DryRun:
		WriteDryRun(w, e.Locks)
	case Rewriting:
		WriteRewrite(w, e.Rewrite, e.Write)
	case Rewrote:
		WriteRewrote(w, e.Rewrite, e.Backup)
	default:
		return false
	}
	return true
}

// WritePlan writes the plan of groups: per config, its lines.
func WritePlan(w io.Writer, groups []*Group) {
	for _, g := range groups {
		for _, s := range g.Sections {
			fmt.Fprintf(w, "%s (%s), into %s:\n", q(s.Config.Path), s.Config.Client.Title, q(g.Lock))
			for _, l := range s.Lines {
				if l.Verb == "" {
					fmt.Fprintf(w, "  %s\n", l.Text)
				} else {
					fmt.Fprintf(w, "  %-6s %s\n", l.Verb, l.Text)
				}
			}
		}
	}
}

// WriteDryRun writes the closing line of a plan shown without --write.
func WriteDryRun(w io.Writer, locks []string) {
	quoted := make([]string, len(locks))
	for i, l := range locks {
		quoted[i] = q(l)
	}
	fmt.Fprintf(w, "\nnothing was written and no server was started; to apply: run the same command with --write (it locks the servers into %s and rewrites the config)\n", strings.Join(quoted, " and "))
}

// WriteRewrite writes the change of one config (write: it is being made),
// or, for a format mcpsum does not rewrite, the lines to paste.
func WriteRewrite(w io.Writer, rw *Rewrite, write bool) {
	cfg := rw.Config
	fmt.Fprintln(w)
	for _, n := range rw.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if rw.Snippet != "" {
		fmt.Fprintf(w, "%s is %s, which mcpsum does not rewrite (it would lose comments). In each table below, replace the lines that say how to start the server (command and args; url and its header lines for a remote one) with these:\n\n%s", q(cfg.Path), cfg.Client.Format, rw.Snippet)
		return
	}
	if rw.Err != nil {
		return
	}
	verb := "would change"
	if write {
		verb = "changes"
	}
	fmt.Fprintf(w, "%s %s:\n", q(cfg.Path), verb)
	for _, ch := range rw.Changes {
		fmt.Fprintf(w, "  %s (line %d)\n  - %s\n  + %s\n", Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), ch.Line, esc(ch.Old), esc(ch.New))
	}
}

// WriteRewrote writes that a config was rewritten and how to undo it.
func WriteRewrote(w io.Writer, rw *Rewrite, backup string) {
	p := q(rw.Config.Path)
	fmt.Fprintf(w, "wrote %s (backup %s; to restore it: mcpsum import --undo %s)\n", p, q(backup), p)
}

// WriteList writes the config files found and what they hold.
func WriteList(w io.Writer, dirs clientconfig.Dirs) {
	found := clientconfig.Find(dirs, nil)
	if len(found) == 0 {
		fmt.Fprintf(w, "no MCP client config found here or in your home folder (clients: %s)\n", strings.Join(clientconfig.Names(), ", "))
		fmt.Fprintln(w, "import one by its path: mcpsum import FILE")
		return
	}
	for _, f := range found {
		cfg, err := clientconfig.Read(f.Path, f.Client, f.Location)
		if err != nil {
			fmt.Fprintf(w, "%-15s %s: cannot read: %v\n", f.Client.Name, q(f.Path), err)
			continue
		}
		fmt.Fprintf(w, "%-15s %s: %s\n", f.Client.Name, q(f.Path), Summary(dirs, cfg))
	}
	fmt.Fprintln(w, "\nimport one: mcpsum import --client NAME (or mcpsum import FILE)")
}

// WriteUndo writes what an undo of the config at path did.
func WriteUndo(w io.Writer, path string, res *clientconfig.UndoResult) {
	if res.NothingLeft {
		fmt.Fprintf(w, "nothing left to undo: mcpsum has no record of writing %s, and no server there runs through mcpsum proxy\n", path)
		return
	}
	if res.Whole {
		fmt.Fprintf(w, "restored %s from %s\n", q(path), q(res.Backup))
		return
	}
	var names []string
	for _, ch := range res.Restored {
		names = append(names, Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}))
	}
	fmt.Fprintf(w, "put back the command and args of %s in %s, keeping every other byte of the file as it is now (the client rewrote it since mcpsum wrote it, or --name chose one entry)\n",
		strings.Join(names, ", "), q(path))
	for _, ch := range res.Left {
		fmt.Fprintf(w, "left %s as it is: it no longer runs what mcpsum wrote (%s)\n",
			Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), qs(ch.After))
	}
}
