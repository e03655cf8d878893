package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/importer"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

type importFlags struct {
	lockfile, client, project, name *string
	serveURL, era                   *string
	write, undo, resolve, trust     *bool
	withDisabled, strict            *bool
	timeout, start                  *int
}

func (a *app) importCommand() *ffcli.Command {
	fs := a.flagSet("import")
	f := importFlags{
		lockfile:     lockfileFlag(fs),
		client:       cli.NameVar(fs, "client", "read this client's config files ("+strings.Join(clientconfig.Names(), ", ")+")"),
		project:      fs.String("project", ".", "the project folder whose config files (.mcp.json, .vscode/mcp.json, …) to read"),
		write:        fs.Bool("write", false, "lock the servers and rewrite the config so they run behind mcpsum proxy (default: show the plan, write nothing)"),
		trust:        fs.Bool("trust-project", false, "with --write, start the commands of project configs (files a cloned repository can ship) without asking"),
		undo:         fs.Bool("undo", false, "undo the last --write of the config: restore its backup, or put back only the entries mcpsum changed if the client rewrote the file since"),
		name:         cli.NameVar(fs, "name", "with --undo, put back only this server's entry"),
		withDisabled: fs.Bool("include-disabled", false, "also lock entries the client config switches off (\"disabled\": true, Codex's enabled = false)"),
		resolve:      fs.Bool("resolve-versions", false, "for an unpinned npx/uvx package, ask npm view / pip index for the version to pin"),
		timeout:      fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started"),
		start:        startTimeoutFlag(fs),
		strict:       fs.Bool("strict", false, "refuse to write (exit 1) when an imported server shadows another server's tools"),
		era:          fs.String("era", "auto", "the protocol era of each new entry: auto (detect), legacy or 2026-07-28 (as lock --era; an entry locked in another era is not moved)"),
		serveURL:     fs.String("serve-url", "", "point each imported entry at mcpsum serve here (http://127.0.0.1:PORT or https://HOST[:PORT]) instead of running mcpsum proxy; the token comes from $MCPSUM_SERVE_TOKEN"),
	}
	return &ffcli.Command{
		Name:       "import",
		ShortUsage: "mcpsum import [--lockfile F] [--client NAME | FILE] [--project DIR] [--write] [--trust-project] [--include-disabled] [--resolve-versions] [--strict] [--era E] [--serve-url URL] [--timeout-secs S] [--start-timeout-secs S]\n  or   mcpsum import --undo [--name N] (--client NAME | FILE)\n  or   mcpsum import            # list the client configs found",
		ShortHelp:  "lock the servers of an MCP client's config and put them behind mcpsum proxy",
		LongHelp: strings.TrimSpace(`
import reads the servers of a client's config (--client NAME, or the
config FILE) and shows what it would lock and how the config would change;
it writes nothing and starts nothing. With --write it locks each server in
the lockfile (its argv is command + args; the names of its env variables
become envPassthrough, their values are never read) and rewrites the config.

A project config (.mcp.json, .vscode/mcp.json, …: a cloned repository can
ship it) has its commands shown first; --write starts them only with
--trust-project, or after you answer yes in a terminal. Only the
user-level servers of ~/.claude.json and those of the current project are
imported. The lockfile (unless --lockfile says): PROJECT/mcp.lock for
configs inside the project folder, $XDG_CONFIG_HOME/mcpsum/mcp.lock
(~/.config/mcpsum/mcp.lock) for your own configs elsewhere; a missing folder
is created, private.

Entries whose command uses a variable the client expands (${input:…},
${workspaceFolder}, ${env:…}, ${VAR}) are skipped with a note. A remote
entry (url, serverUrl, httpUrl) is locked by its URL and, for each header,
the variable its value names in the client's syntax (${VAR}, ${env:VAR},
${input:ID}); a literal header value is refused, never copied. Entries the config switches off
("disabled": true, Codex's enabled = false) are skipped with a note;
--include-disabled locks them too.

The rewrite changes only the command and args of each imported entry, to
"/abs/mcpsum proxy --lockfile L --name N", keeping every other byte, after a
time-stamped backup beside the file (recorded in mcpsum's state folder).
--undo restores it; if the client rewrote its file since, --undo puts back
only the entries mcpsum changed (--name N: just that one). Codex's TOML is
not rewritten: import prints the lines to paste. Running import again
changes nothing: entries that already run mcpsum proxy are recognised.

With --serve-url URL (where mcpsum serve answers, e.g.
http://127.0.0.1:8808) each imported entry is replaced, whole, by one
pointing the client at URL/servers/NAME/mcp with the header
"Authorization: Bearer" followed by the variable MCPSUM_SERVE_TOKEN in the
client's syntax (${MCPSUM_SERVE_TOKEN} for Claude Code and Gemini CLI,
${env:MCPSUM_SERVE_TOKEN} for Cursor, VS Code, Windsurf, Devin; Codex's
snippet names it in bearer_token_env_var). Set that variable to the
content of serve's --token-file where the client starts. A client whose
config cannot take a header from a variable (Claude Desktop, Zed, Cline,
LM Studio) is refused. --undo puts the entries back as before.

After locking, the listing names the shadowing between the imported servers
and the lock's others (as lock warns of it); with --strict it is an error
(exit 1) and nothing is written.

--era chooses the protocol era of each new entry, as lock --era does: auto
(the default) detects it; legacy or 2026-07-28 speaks only that era. An
entry already locked in another era is not moved: import names the commands
that do it and leaves that server's config entry as it is.

With neither --client nor FILE, import lists the config files it finds.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 1 {
				return usageErr("import takes at most one config FILE (got %d arguments)", len(args))
			}
			if err := checkTimeouts(*f.timeout, *f.start); err != nil {
				return err
			}
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			var client *clientconfig.Client
			if *f.client != "" {
				c, ok := clientconfig.Lookup(*f.client)
				if !ok {
					return usageErr("--client %s: unknown client; one of: %s", quoteArg(*f.client), strings.Join(clientconfig.Names(), ", "))
				}
				client = c
			}
			era, err := launch.ParseEra(*f.era)
			if err != nil {
				return usageErr("%v", err)
			}
			if st, err := os.Stat(*f.project); err != nil || !st.IsDir() {
				return usageErr("--project %s is not a folder: name the project folder whose configs (.mcp.json, .vscode/mcp.json, …) to read", quoteArg(*f.project))
			}
			dirs := clientconfig.DirsFromEnv(*f.project)
			if *f.undo {
				if era != "" {
					return usageErr("--era applies to an import, not to --undo")
				}
				if *f.serveURL != "" {
					return usageErr("--serve-url applies to an import, not to --undo (which puts back whatever the last --write changed)")
				}
				return a.importUndo(dirs, client, file, *f.name)
			}
			serve := ""
			if *f.serveURL != "" {
				var err error
				if serve, err = importer.ServeBase(*f.serveURL); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				if client != nil {
					if err := client.CanServe(); err != nil {
						return &exitError{code: exitUsage, err: err}
					}
				}
			}
			if *f.name != "" {
				return usageErr("--name applies to --undo only (import takes the servers' names from the config)")
			}
			if file == "" && client == nil {
				importer.WriteList(a.stdout, dirs)
				return nil
			}
			cfgs, err := importer.ReadConfigs(dirs, client, file)
			if err != nil {
				return err
			}
			for _, cfg := range cfgs {
				if err := cfg.Client.CanServe(); serve != "" && err != nil {
					return &exitError{code: exitUsage, err: err}
				}
			}
			o := importer.Options{Dirs: dirs, IncludeDisabled: *f.withDisabled, Resolve: *f.resolve}
			if o.Self, err = importer.SelfPath(); err != nil {
				return err
			}
			fs.Visit(func(fl *flag.Flag) {
				if fl.Name == "lockfile" {
					o.Lockfile = *f.lockfile
				}
			})
			return a.importConfigs(ctx, cfgs, o, f, serve, era)
		},
	}
}

// importConfigs shows the plan of every config (nothing runs), then
// applies it (importer.Apply) and renders what Apply reports.
func (a *app) importConfigs(ctx context.Context, cfgs []*clientconfig.Config, o importer.Options, f importFlags, serve, era string) error {
	groups, err := importer.Plan(ctx, cfgs, o)
	if err != nil {
		return err
	}
	importer.WritePlan(a.stdout, groups)
	ao := importer.ApplyOptions{Self: o.Self, Serve: serve, Write: *f.write, Locker: a.writeOptions(*f.strict), Event: a.importEvent, Now: time.Now,
		Pin: launch.Options{Timeout: time.Duration(*f.timeout) * time.Second, StartTimeout: time.Duration(*f.start) * time.Second,
			Note: a.noter("import"), Authorize: a.authorizer("import"), Step: a.step, Era: era},
		Progress: a.lockProgress,
		CheckLog: a.logChecker("import"),
		Review:   a.lockHooks("").Review, // a server imported again: what the lock takes in
	}
	ao.Ask, ao.TrustProject = a.askTrust, *f.trust
	return importer.Apply(ctx, groups, ao)
}

// importEvent renders one step of importer.Apply.
func (a *app) importEvent(e importer.Event) {
	switch {
	case e.Show(a.stdout):
	case e.Kind == importer.MadeLockDir:
		fmt.Fprintf(a.stderr, "import: created the folder %s (private) for %s\n", quoteArg(e.Dir), quoteArg(e.Lock))
	case e.Kind == importer.Wrote:
		locker.WriteWritten(a.stderr, e.Lock, e.Entries, e.Written, nil)
		for _, s := range e.Written.Shadows {
			fmt.Fprintf(a.stdout, "  shadow %s\n", s)
		}
	case e.Kind == importer.Failure:
		printErr(a.stderr, e.Err)
	}
}

// lockProgress renders a run of locks: a progress line per server, and on
// a terminal what each is doing (step).
func (a *app) lockProgress(names []string) (func(string, *lockfile.Server, error), func()) {
	p := cli.NewProgress(a.stderr, isTerminal(a.stderr), names)
	a.live.Store(p)
	done := func(name string, e *lockfile.Server, err error) { p.Done(name, locker.ProgressLine(e, err)) }
	return done, func() { a.live.Store(nil); p.Stop() }
}

// step is launch.Options.Step: the running locks' progress hears it.
func (a *app) step(server, step string) {
	if p := a.live.Load(); p != nil {
		p.Step(server, step)
	}
}
