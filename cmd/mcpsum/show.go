package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) showCommand() *ffcli.Command {
	fs := a.flagSet("show")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "show only this server")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	_, _, _ = lockfile, name, asJSON
	return &ffcli.Command{
		Name:       "show",
		ShortUsage: "mcpsum show [--lockfile F] [--name N] [--json]",
		ShortHelp:  "summarise mcp.lock for review (checks its digests first)",
		LongHelp: strings.TrimSpace(`
show prints, per server: command, environment names, era, protocol version,
counts, each tool with its annotations and digest, and the policy. Text a
server wrote is shown escaped; items with control, ANSI, bidi or zero-width
characters are flagged as suspicious.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum show")
		},
	}
}
