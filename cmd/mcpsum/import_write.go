package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/clientconfig"
	"github.com/mcpsum/mcpsum/pkg/importer"
)

// rewriteConfigs shows (or, with write, makes) the change of every config
// of g with a locked server: its command and args become mcpsum proxy.
func (a *app) rewriteConfigs(g *importer.Group, self string, write bool) error {
	var firstErr error
	for _, rw := range importer.Rewrites(g, self) {
		cfg := rw.Config
		fmt.Fprintln(a.stdout)
		if rw.Snippet != "" {
			fmt.Fprintf(a.stdout, "%s is %s, which mcpsum does not rewrite (it would lose comments). In each table below, replace the lines that say how to start the server (command and args; url and its header lines for a remote one) with these:\n\n%s", quoteArg(cfg.Path), cfg.Client.Format, rw.Snippet)
			continue
		}
		if rw.Err != nil {
			firstErr = firstNonNil(firstErr, rw.Err)
			continue
		}
		for _, n := range rw.Notes {
			fmt.Fprintf(a.stdout, "note: %s\n", n)
		}
		verb := "would change"
		if write {
			verb = "changes"
		}
		fmt.Fprintf(a.stdout, "%s %s:\n", quoteArg(cfg.Path), verb)
		for _, ch := range rw.Changes {
			fmt.Fprintf(a.stdout, "  %s (line %d)\n  - %s\n  + %s\n", importer.Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), ch.Line, escapeLine(ch.Old), escapeLine(ch.New))
		}
		if !write {
			continue
		}
		stateDir, err := statefile.Dir()
		if err == nil {
			var backup string
			if backup, err = rw.Write(stateDir, time.Now()); err == nil {
				fmt.Fprintf(a.stdout, "wrote %s (backup %s; to restore it: mcpsum import --undo %s)\n", quoteArg(cfg.Path), quoteArg(backup), quoteArg(cfg.Path))
			}
		}
		firstErr = firstNonNil(firstErr, err)
	}
	return firstErr
}

// decideTrust asks before any command of a project config runs (or any
// remote server of one is contacted with the user's header variables):
// those files come with a repository.
func (a *app) decideTrust(groups []*importer.Group, trust bool) error {
	shared, files := importer.Shared(groups)
	if len(shared) == 0 || trust {
		return nil
	}
	var quoted []string
	for _, f := range files {
		quoted = append(quoted, quoteArg(f))
	}
	in, ok := a.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return usageErr("import --write would start %d command(s) of the project config %s, which came with the project (a cloned repository chooses them), and stdin is not a terminal to ask you; nothing was started or written. Review the commands above, then run the same command with --trust-project",
			len(shared), strings.Join(quoted, ", "))
	}
	fmt.Fprintf(a.stderr, "\nimport will start these commands of the project config %s (a cloned repository chooses them) to lock them:\n%s\nstart them? [y/N] ", strings.Join(quoted, ", "), strings.Join(shared, "\n"))
	line, _ := bufio.NewReader(in).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		return usageErr("import: not started (you did not answer yes); nothing was written")
	}
	return nil
}

// listConfigs prints the config files found and what they hold.
func (a *app) listConfigs(dirs clientconfig.Dirs) error {
	found := clientconfig.Find(dirs, nil)
	if len(found) == 0 {
		fmt.Fprintf(a.stdout, "no MCP client config found here or in your home folder (clients: %s)\n", strings.Join(clientconfig.Names(), ", "))
		fmt.Fprintln(a.stdout, "import one by its path: mcpsum import FILE")
		return nil
	}
	for _, f := range found {
		cfg, err := clientconfig.Read(f.Path, f.Client, f.Location)
		if err != nil {
			fmt.Fprintf(a.stdout, "%-15s %s: cannot read: %v\n", f.Client.Name, quoteArg(f.Path), err)
			continue
		}
		fmt.Fprintf(a.stdout, "%-15s %s: %s\n", f.Client.Name, quoteArg(f.Path), importer.Summary(dirs, cfg))
	}
	fmt.Fprintln(a.stdout, "\nimport one: mcpsum import --client NAME (or mcpsum import FILE)")
	return nil
}

// importUndo undoes the last --write of FILE, or of each config of client
// that mcpsum wrote.
func (a *app) importUndo(dirs clientconfig.Dirs, client *clientconfig.Client, file, name string) error {
	stateDir, err := statefile.Dir()
	if err != nil {
		return err
	}
	files := []string{file}
	if file == "" {
		if client == nil {
			return usageErr("--undo needs the config: mcpsum import --undo FILE (or --client NAME)")
		}
		if files, err = importer.UndoFiles(dirs, client, stateDir, name); err != nil {
			return err
		}
	}
	var firstErr error
	for _, p := range files {
		res, err := clientconfig.Undo(p, clientconfig.UndoOptions{StateDir: stateDir, Now: time.Now(), Name: name})
		if err != nil {
			if firstErr != nil {
				fmt.Fprintf(a.stderr, "mcpsum: %v\n", err)
			}
			firstErr = firstNonNil(firstErr, err)
			continue
		}
		for _, n := range res.Ignored {
			fmt.Fprintf(a.stderr, "import: %s\n", escapeLine(n))
		}
		a.printUndo(p, res)
	}
	return firstErr
}

func (a *app) printUndo(path string, res *clientconfig.UndoResult) {
	if res.Whole {
		fmt.Fprintf(a.stdout, "restored %s from %s\n", quoteArg(path), quoteArg(res.Backup))
		return
	}
	var names []string
	for _, ch := range res.Restored {
		names = append(names, importer.Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}))
	}
	fmt.Fprintf(a.stdout, "put back the command and args of %s in %s, keeping every other byte of the file as it is now (the client rewrote it since mcpsum wrote it, or --name chose one entry)\n",
		strings.Join(names, ", "), quoteArg(path))
	for _, ch := range res.Left {
		fmt.Fprintf(a.stdout, "left %s as it is: it no longer runs what mcpsum wrote (%s)\n",
			importer.Label(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), quoteArgs(ch.After))
	}
}

func escapeLine(s string) string {
	q, _ := quoteText(s)
	return q
}

func firstNonNil(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
