package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/show"
)

func (a *app) showCommand() *ffcli.Command {
	fs := a.flagSet("show")
	lockfilePath := lockfileFlag(fs)
	name := cli.NameVar(fs, "name", "show only this server")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	compact := fs.Bool("compact", false, "one line per item: descriptions and instructions cut at about 100 characters, no schemas")
	strict := fs.Bool("strict", false, "exit 1 when a shown server shadows another server's tools (same or look-alike names, text naming them)")
	return &ffcli.Command{
		Name:       "show",
		ShortUsage: "mcpsum show [--lockfile F] [--name N] [--json] [--compact] [--strict]",
		ShortHelp:  "summarise mcp.lock for review (checks its digests first)",
		LongHelp: strings.TrimSpace(`
show prints, per server: command, environment names, era, protocol version,
counts, the instructions in full, every tool, prompt, resource and template
with its digest, annotations, full description and every other field
(schemas included) as JSON, and the policy: everything the server tells a
model, for review. --compact prints one line per item instead. Text a server
wrote is shown escaped; items with control, ANSI, bidi or zero-width
characters are flagged as suspicious. show also prints the program each
command runs here and the folder it runs in (the lockfile's folder), and warns
about code-loading variables, machine-specific paths, risky sandbox write
paths and look-alike names, and about shadowing across the lock's servers: the
same or a look-alike tool or prompt name in two servers, and a server's text
that names another server's tool (each pair once). Shadowing is a warning;
with --strict show exits 1 after printing.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("show takes no arguments (got %q)", args[0])
			}
			f, err := locker.Load(*lockfilePath)
			if err != nil {
				return err
			}
			names, err := locker.Select(f, *lockfilePath, *name)
			if err != nil {
				return err
			}
			v := show.Build(f, names, *lockfilePath)
			if *asJSON {
				if err := writeJSON(a.stdout, v); err != nil {
					return err
				}
			} else {
				out := &cli.Lines{W: a.stdout}
				v.WriteText(out, *lockfilePath, *compact)
				if err := out.Flush(); err != nil {
					return err
				}
			}
			if err := v.ShadowingError(*lockfilePath); *strict && err != nil {
				return verdict(err)
			}
			return nil
		},
	}
}
