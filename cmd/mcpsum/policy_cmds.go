package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) suggestPolicyCommand() *ffcli.Command {
	fs := a.flagSet("suggest-policy")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "locked server to suggest a policy for (required)")
	_, _ = lockfile, name
	return &ffcli.Command{
		Name:       "suggest-policy",
		ShortUsage: "mcpsum suggest-policy [--lockfile F] --name N",
		ShortHelp:  "print a conservative taint policy from a server's annotations",
		LongHelp: strings.TrimSpace(`
suggest-policy labels tools from the server's own annotations, conservatively
(a missing hint counts as "may reach the outside world" and "may write"), and
prints JSON for you to review and paste. It never edits the lockfile.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum suggest-policy")
		},
	}
}

func (a *app) taintCommand() *ffcli.Command {
	listFS := a.flagSet("taint list")
	resetFS := a.flagSet("taint reset")
	all := resetFS.Bool("all", false, "reset every session")
	_ = all
	return &ffcli.Command{
		Name:       "taint",
		ShortUsage: "mcpsum taint list | mcpsum taint reset SESSION | mcpsum taint reset --all",
		ShortHelp:  "review and clear the taint state of client sessions",
		Subcommands: []*ffcli.Command{
			{
				Name: "list", ShortUsage: "mcpsum taint list", ShortHelp: "list tainted sessions and what tainted them",
				FlagSet: listFS,
				Exec:    func(ctx context.Context, args []string) error { return notAvailable("mcpsum taint list") },
			},
			{
				Name: "reset", ShortUsage: "mcpsum taint reset SESSION | --all", ShortHelp: "clear a session's taint after review",
				FlagSet: resetFS,
				Exec:    func(ctx context.Context, args []string) error { return notAvailable("mcpsum taint reset") },
			},
		},
		Exec: func(ctx context.Context, args []string) error {
			return usageErr("taint needs a subcommand: list or reset")
		},
	}
}
