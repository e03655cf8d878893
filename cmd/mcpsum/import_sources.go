package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/statefile"

	"github.com/mcpsum/mcpsum/pkg/clientconfig"
)

// readConfigs reads FILE, or every config file of client that exists.
func readConfigs(dirs clientconfig.Dirs, client *clientconfig.Client, file string) ([]*clientconfig.Config, error) {
	if file != "" {
		src, err := clientconfig.ReadFile(file)
		if err != nil {
			return nil, err
		}
		c, loc := client, clientconfig.Location{Base: clientconfig.Home}
		if c == nil {
			if c, loc, err = clientconfig.Detect(file, src, dirs.Project); err != nil {
				return nil, usageErr("%v", err)
			}
		} else if _, l, err := clientconfig.Detect(file, src, dirs.Project); err == nil && l.Project() {
			loc = l
		}
		cfg, err := clientconfig.Parse(file, src, c, loc)
		if err != nil {
			return nil, err
		}
		cfg.Shared = cfg.Shared || clientconfig.IsProjectFile(file, dirs.Home)
		return []*clientconfig.Config{cfg}, nil
	}
	found := clientconfig.Find(dirs, client)
	if len(found) == 0 {
		return nil, fmt.Errorf("no %s config found (looked in %s); give the config file's path instead: mcpsum import FILE",
			client.Title, strings.Join(lookedIn(dirs, client), ", "))
	}
	var out []*clientconfig.Config
	for _, f := range found {
		cfg, err := clientconfig.Read(f.Path, f.Client, f.Location)
		if err != nil {
			return nil, err
		}
		out = append(out, cfg)
	}
	return out, nil
}

func lookedIn(dirs clientconfig.Dirs, c *clientconfig.Client) []string {
	var out []string
	for _, l := range c.Locations {
		if l.OS == "" || l.OS == dirs.OS {
			out = append(out, l.Rel)
		}
	}
	return out
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
		counts := map[clientconfig.Status]int{}
		disabled, others := 0, 0
		here := realAbs(dirs.Project)
		for _, e := range cfg.Entries {
			if e.Scope != "" && realAbs(e.Scope) != here {
				others++ // another project's: import leaves it out
				continue
			}
			st := e.Status
			if st == clientconfig.Lockable && checkImportable(e, nil, "") != "" {
				st = clientconfig.Invalid // as import --client would say
			}
			if st == clientconfig.Lockable && e.Disabled {
				disabled++ // import skips it unless --include-disabled
				continue
			}
			counts[st]++
		}
		var parts []string
		for _, s := range []clientconfig.Status{clientconfig.Lockable, clientconfig.Wrapped, clientconfig.Interpolated, clientconfig.Remote, clientconfig.Extension, clientconfig.Invalid} {
			if counts[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
			}
			if s == clientconfig.Lockable && disabled > 0 {
				parts = append(parts, fmt.Sprintf("%d disabled", disabled))
			}
		}
		if len(parts) == 0 {
			parts = []string{"no servers"}
		}
		if others > 0 {
			parts = append(parts, fmt.Sprintf("(and %d of other projects, left out here)", others))
		}
		fmt.Fprintf(a.stdout, "%-15s %s: %s\n", f.Client.Name, quoteArg(f.Path), strings.Join(parts, ", "))
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
		files = nil
		var unrecorded []string
		for _, f := range clientconfig.Find(dirs, client) {
			if clientconfig.HasRecord(stateDir, f.Path, name) {
				files = append(files, f.Path)
			} else if b, _ := clientconfig.Backups(f.Path); len(b) > 0 {
				unrecorded = append(unrecorded, f.Path)
			}
		}
		if len(files) == 0 {
			files = unrecorded // Undo says why their backup-like files are not used
		}
		if len(files) == 0 {
			what := "an mcpsum --write"
			if name != "" {
				what = "an mcpsum --write that changed " + quoteArg(name)
			}
			return fmt.Errorf("no %s config has a record of %s (records are kept in %s): nothing to undo", client.Title, what, quoteArg(stateDir))
		}
	}
	var firstErr error
	for _, p := range files {
		res, err := clientconfig.Undo(p, clientconfig.UndoOptions{StateDir: stateDir, Now: time.Now(), Name: name})
		if err == nil {
			for _, n := range res.Ignored {
				fmt.Fprintf(a.stderr, "import: %s\n", escapeLine(n))
			}
		}
		if err != nil {
			if firstErr != nil {
				fmt.Fprintf(a.stderr, "mcpsum: %v\n", err)
			}
			firstErr = firstNonNil(firstErr, err)
			continue
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
		names = append(names, entryLabel(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}))
	}
	fmt.Fprintf(a.stdout, "put back the command and args of %s in %s, keeping every other byte of the file as it is now (the client rewrote it since mcpsum wrote it, or --name chose one entry)\n",
		strings.Join(names, ", "), quoteArg(path))
	for _, ch := range res.Left {
		fmt.Fprintf(a.stdout, "left %s as it is: it no longer runs what mcpsum wrote (%s)\n",
			entryLabel(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), quoteArgs(ch.After))
	}
}
