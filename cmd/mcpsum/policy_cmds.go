package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/policy"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/statefile"
)

func (a *app) suggestPolicyCommand() *ffcli.Command {
	fs := a.flagSet("suggest-policy")
	lockfile := lockfileFlag(fs)
	name := cli.NameVar(fs, "name", "locked server to suggest a policy for (required)")
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
			f, err := locker.Load(*lockfile)
			if err != nil {
				return err
			}
			if _, err := locker.Select(f, *lockfile, *name); err != nil {
				return err
			}
			sg := policy.Suggest(f.Servers[*name])
			if e := f.Servers[*name]; review.DataShaped(e) && (e.Policy == nil || !slices.Contains(e.Policy.Unpinned, "resources")) {
				fmt.Fprintf(a.stderr, "note: its resources look like data the server lists live (one per table or row): if they are, a new one quarantines the server; add \"unpinned\": [\"resources\"] beside \"taint\" in the policy below (see \"policy.unpinned\" in docs/lockfile-format.md)\n")
			}
			sg.WriteSuggestion(a.stderr, f.Servers[*name], *name, *lockfile)
			return writeJSON(a.stdout, sg.Paste())
		},
	}
}

func (a *app) taintCommand() *ffcli.Command {
	listFS := a.flagSet("taint list")
	resetFS := a.flagSet("taint reset")
	all := resetFS.Bool("all", false, "reset every session")
	return &ffcli.Command{
		Name:       "taint",
		ShortUsage: "mcpsum taint list | mcpsum taint reset SESSION | mcpsum taint reset --all",
		ShortHelp:  "review and clear the taint state of client sessions",
		LongHelp: strings.TrimSpace(`
A client session is tainted once a result of a taint source (policy.taint.sources)
reached it; from then on every sink call needs approval through the client, or
is refused. taint list shows each tainted session: its client process, whether
it still runs, and what tainted it when. taint reset clears a session after you
reviewed what it read (--all: every session), and with it every call the user
allowed "for the rest of this session" in an approval prompt (taint list shows
them). Both run only from a terminal:
stdin must be a terminal, so a model driving a shell tool cannot clear its own
taint. The state is in $XDG_STATE_HOME/mcpsum/taint (default
~/.local/state/mcpsum/taint); every decision is logged to taint-audit.jsonl
beside it.`),
		Subcommands: []*ffcli.Command{
			{
				Name: "list", ShortUsage: "mcpsum taint list", ShortHelp: "list tainted sessions and what tainted them",
				FlagSet: listFS,
				Exec: func(ctx context.Context, args []string) error {
					if len(args) > 0 {
						return usageErr("usage: mcpsum taint list (no arguments)")
					}
					store, err := a.taintStore("taint list")
					if err != nil {
						return err
					}
					return store.WriteList(a.stdout, func(err error) { fmt.Fprintf(a.stderr, "mcpsum taint list: cleanup: %v\n", err) })
				},
			},
			{
				Name: "reset", ShortUsage: "mcpsum taint reset SESSION | --all", ShortHelp: "clear a session's taint after review",
				FlagSet: resetFS,
				Exec: func(ctx context.Context, args []string) error {
					if *all == (len(args) == 1) || len(args) > 1 {
						return usageErr("usage: mcpsum taint reset SESSION | mcpsum taint reset --all (see mcpsum taint list)")
					}
					if len(args) == 1 && strings.TrimSpace(args[0]) == "" {
						return usageErr("taint reset %q: an empty or blank session names nothing; give the session itself (see mcpsum taint list)", args[0])
					}
					store, err := a.taintStore("taint reset")
					if err != nil {
						return err
					}
					id := ""
					if len(args) == 1 {
						id = args[0]
					}
					if err := store.WriteReset(a.stdout, id, *all); err != nil {
						if errors.Is(err, policy.ErrNoSession) {
							return usageHint("run 'mcpsum taint list' to see the tainted sessions", "%v", err)
						}
						if !*all && policy.ValidSessionID(id) != nil {
							return &exitError{code: exitUsage, err: err}
						}
						return err
					}
					return nil
				},
			},
		},
		Exec: func(ctx context.Context, args []string) error {
			return usageErr("taint needs a subcommand: list or reset")
		},
	}
}

// taintStore refuses unless stdin is a terminal, then opens the store.
func (a *app) taintStore(cmd string) (*policy.Store, error) {
	if f, ok := a.stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, verdict(hint.Errorf("run it yourself in a terminal", "mcpsum %s runs only from a terminal (stdin is not one), so a model driving a shell tool cannot review or clear its own taint", cmd))
	}
	dir, err := statefile.Dir()
	if err != nil {
		return nil, err
	}
	return policy.NewStore(dir), nil
}
