package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/pkg/policy"
)

func (a *app) suggestPolicyCommand() *ffcli.Command {
	fs := a.flagSet("suggest-policy")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "locked server to suggest a policy for (required)")
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
			if len(args) > 0 || *name == "" {
				return usageErr("usage: mcpsum suggest-policy [--lockfile F] --name N")
			}
			f, err := loadLock(*lockfile)
			if err != nil {
				return err
			}
			if _, err := selectServers(f, *lockfile, *name); err != nil {
				return err
			}
			s := f.Servers[*name]
			sg := policy.Suggest(s)
			for _, r := range sg.Reasons {
				var labels []string
				if r.Source {
					labels = append(labels, "source")
				}
				if r.Sink {
					labels = append(labels, "sink")
				}
				if len(labels) == 0 {
					labels = append(labels, "unlabelled")
				}
				fmt.Fprintf(a.stderr, "%-12s %s  (%s)\n", strings.Join(labels, "+"), oneLine(r.Tool, 60), r.Why)
			}
			if s.Policy != nil && s.Policy.Taint != nil {
				fmt.Fprintf(a.stderr, "note: server %s already has a taint policy; compare before replacing it\n", quoteArg(*name))
			}
			fmt.Fprintf(a.stderr, "Review, then paste this into servers.%s in %s (hints are the server's own claims):\n", quoteArg(*name), *lockfile)
			type taint struct {
				Sources []string `json:"sources"`
				Sinks   []string `json:"sinks"`
			}
			return writeJSON(a.stdout, map[string]any{"policy": map[string]any{"taint": taint{sg.Taint.Sources, sg.Taint.Sinks}}})
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
