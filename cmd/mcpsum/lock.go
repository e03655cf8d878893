package main

import (
	"context"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) lockCommand() *ffcli.Command {
	fs := a.flagSet("lock")
	lockfile := lockfileFlag(fs)
	name := fs.String("name", "", "server entry to add, replace or re-lock")
	var envs stringList
	fs.Var(&envs, "env", "name of an environment variable passed to the server (repeatable; values are never stored)")
	timeout := fs.Int("timeout-secs", 30, "seconds to wait for each server to answer")
	_, _, _ = lockfile, name, timeout
	return &ffcli.Command{
		Name:       "lock",
		ShortUsage: "mcpsum lock [--lockfile F] --name N [--env VAR]... [--timeout-secs S] -- COMMAND [ARG]...\n       mcpsum lock [--lockfile F] [--name N]",
		ShortHelp:  "run servers and pin their command and surface in mcp.lock",
		LongHelp: strings.TrimSpace(`
With a command after --, lock runs it, detects its protocol era, lists its
tools, prompts, resources and templates, and adds or replaces the entry N.
Without a command, lock re-locks the existing entries (or just N) with their
locked command and environment names, in their locked era first, several in
parallel. A server's policy is kept; taint labels of tools that no longer exist
are dropped and printed. A failed lock leaves mcp.lock untouched.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum lock")
		},
	}
}
