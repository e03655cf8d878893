package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/pkg/clientconfig"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/pin"
)

type importFlags struct {
	lockfile, client, project *string
	write, undo, resolve      *bool
	withDisabled, strict      *bool
	timeout, start            *int
}

func (a *app) importCommand() *ffcli.Command {
	fs := a.flagSet("import")
	f := importFlags{
		lockfile:     lockfileFlag(fs),
		client:       fs.String("client", "", "read this client's config files ("+strings.Join(clientconfig.Names(), ", ")+")"),
		project:      fs.String("project", ".", "the project folder whose config files (.mcp.json, .vscode/mcp.json, …) to read"),
		write:        fs.Bool("write", false, "rewrite the config so the imported servers run behind mcpsum proxy (default: show the change only)"),
		undo:         fs.Bool("undo", false, "restore the config from the backup of the last --write (refused if the file changed since)"),
		withDisabled: fs.Bool("include-disabled", false, "also lock entries the client config switches off (\"disabled\": true, Codex's enabled = false)"),
		resolve:      fs.Bool("resolve-versions", false, "for an unpinned npx/uvx package, ask npm view / pip index for the version to pin"),
		timeout:      fs.Int("timeout-secs", defaultTimeoutSecs, "seconds to wait for each answer of a server once it has started"),
		start:        startTimeoutFlag(fs),
		strict:       fs.Bool("strict", false, "refuse to write (exit 1) when an imported server shadows another server's tools"),
	}
	return &ffcli.Command{
		Name:       "import",
		ShortUsage: "mcpsum import [--lockfile F] [--client NAME | FILE] [--project DIR] [--write] [--include-disabled] [--resolve-versions] [--strict] [--timeout-secs S] [--start-timeout-secs S]\n  or   mcpsum import --undo (--client NAME | FILE)\n  or   mcpsum import            # list the client configs found",
		ShortHelp:  "lock the servers of an MCP client's config and put them behind mcpsum proxy",
		LongHelp: strings.TrimSpace(`
import reads the stdio servers of a client's config (--client NAME, or the
config FILE) and locks each one in mcp.lock: its argv is command + args, the
names of its env variables become envPassthrough (their values are never
read). Entries whose command uses a variable the client expands (${input:…},
${workspaceFolder}, ${env:…}, ${VAR}) are skipped with a note; remote (url)
entries are listed as not lockable. Entries the config switches off
("disabled": true, Codex's enabled = false) are not running, so they are
skipped with a note; --include-disabled locks them too. As with lock, a server gets
--start-timeout-secs to write its first line (a first npx run downloads the
package), then --timeout-secs for each answer.

Then it shows how the config changes: only the command and args of each
imported entry, to "mcpsum proxy --lockfile L --name N". --write applies that
change, keeping every other byte (comments, formatting, other servers, env),
after writing a time-stamped backup beside the file; --undo restores it.
A project config gets the client's workspace variable instead of an absolute
path where the client has one. Codex's TOML is not rewritten: import prints
the lines to paste. Running import again changes nothing: entries that already
run mcpsum proxy are recognised.

After locking, the listing names the shadowing between the imported servers
and the lock's others: the same or a look-alike tool or prompt name, or text
of one server naming another's tool (each pair once). With --strict that is
an error (exit 1) and nothing is written.

With neither --client nor FILE, import lists the config files it finds.`),
		FlagSet: fs,
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 1 {
				return usageErr("import takes at most one config FILE (got %d arguments)", len(args))
			}
			if err := checkTimeouts(*f.timeout, *f.start); err != nil {
				return err
			}
			a.strictShadow = *f.strict
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
			dirs := clientconfig.DirsFromEnv(*f.project)
			if *f.undo {
				return a.importUndo(dirs, client, file)
			}
			if file == "" && client == nil {
				return a.listConfigs(dirs)
			}
			cfgs, err := readConfigs(dirs, client, file)
			if err != nil {
				return err
			}
			return a.importConfigs(ctx, cfgs, f)
		},
	}
}

// candidate is one server to lock, possibly used by several configs.
type candidate struct {
	name  string
	argv  []string
	env   []string
	where []entryRef
	entry *lockfile.Server
	err   error
}

type entryRef struct {
	cfg *clientconfig.Config
	key clientconfig.Key
}

func (a *app) importConfigs(ctx context.Context, cfgs []*clientconfig.Config, f importFlags) error {
	lockPath := *f.lockfile
	existing, err := lockfile.Load(lockPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		existing = nil
	case err != nil:
		return err
	}
	var cands []*candidate
	byName := map[string]*candidate{}
	for _, cfg := range cfgs {
		fmt.Fprintf(a.stdout, "%s (%s):\n", quoteArg(cfg.Path), cfg.Client.Title)
		if cfg.Empty {
			fmt.Fprintln(a.stdout, "  the file is empty: no servers to import")
			continue
		}
		if len(cfg.Entries) == 0 {
			fmt.Fprintln(a.stdout, "  no servers in it")
		}
		for _, n := range cfg.ReadEnvFiles() {
			fmt.Fprintf(a.stdout, "  note   %s\n", escapeLine(n))
		}
		for _, e := range cfg.Entries {
			label := entryLabel(e)
			switch e.Status {
			case clientconfig.Lockable:
			case clientconfig.Wrapped:
				note := ""
				if existing == nil || existing.Servers[e.WrappedName] == nil {
					note = fmt.Sprintf(" (but %s has no server %s)", quoteArg(lockPath), quoteArg(e.WrappedName))
				}
				fmt.Fprintf(a.stdout, "  skip   %s: %s%s\n", label, escapeLine(e.Note), note)
				if !isThisMcpsum(e.Argv[0]) {
					fmt.Fprintf(a.stdout, "  warn   %s: it runs %s, a program named mcpsum that is not this mcpsum: a config (a cloned repository's) can ship its own; check that program before trusting the entry, or put the server's own command back in the entry and import again\n", label, quoteArg(e.Argv[0]))
				}
				continue
			case clientconfig.Interpolated:
				fmt.Fprintf(a.stdout, "  skip   %s: %s; lock it by hand with the value it has (mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...), then set the entry's command and args to: mcpsum proxy --lockfile %s --name %s\n",
					label, escapeLine(e.Note), quoteArg(lockPath), quoteArg(e.Name), quoteArg(lockPath), quoteArg(e.Name))
				continue
			default:
				if e.Host != "" {
					fmt.Fprintf(a.stdout, "  skip   %s: %s: %s\n", label, escapeLine(e.Host), escapeLine(e.Note))
				} else {
					fmt.Fprintf(a.stdout, "  skip   %s: %s\n", label, escapeLine(e.Note))
				}
				continue
			}
			if e.Disabled && !*f.withDisabled {
				fmt.Fprintf(a.stdout, "  skip   %s: disabled in the client config (the client does not start it); to lock it too: mcpsum import --include-disabled %s\n", label, importAgain(cfg, lockPath))
				continue
			}
			if err := checkImportable(e, existing, lockPath); err != "" {
				fmt.Fprintf(a.stdout, "  skip   %s: %s\n", label, err)
				continue
			}
			env := entryEnv(e)
			if c := byName[e.Name]; c != nil {
				if !slices.Equal(c.argv, e.Argv) || !slices.Equal(c.env, env) {
					fmt.Fprintf(a.stdout, "  skip   %s: another config has a server %s with a different command or env; rename one of them in its client config and import again\n", label, quoteArg(e.Name))
					continue
				}
				c.where = append(c.where, entryRef{cfg, e.Key()})
				fmt.Fprintf(a.stdout, "  lock   %s: %s (same as above)\n", label, quoteArgs(e.Argv))
				continue
			}
			c := &candidate{name: e.Name, argv: e.Argv, env: env, where: []entryRef{{cfg, e.Key()}}}
			cands = append(cands, c)
			byName[e.Name] = c
			fmt.Fprintf(a.stdout, "  lock   %s: %s", label, quoteArgs(e.Argv))
			if len(env) > 0 {
				fmt.Fprintf(a.stdout, " (env passed through: %s)", strings.Join(env, ", "))
			}
			fmt.Fprintln(a.stdout)
			a.warnUnpinned(ctx, e, *f.resolve)
			if e.Cwd != "" {
				fmt.Fprintf(a.stdout, "  warn   %s: the entry sets cwd %s, but mcpsum runs every locked server in the lockfile's folder, so a relative path in its command resolves there under lock, verify and proxy: make it absolute in the client config (or relative to the lockfile's folder), then import again\n",
					quoteArg(e.Name), quoteArg(e.Cwd))
			}
		}
	}
	if len(cands) == 0 {
		fmt.Fprintln(a.stdout, "nothing to import")
		return nil
	}
	opts := pin.Options{Lockfile: lockPath, Timeout: time.Duration(*f.timeout) * time.Second,
		StartTimeout: time.Duration(*f.start) * time.Second, Note: a.noter("import")}
	if err := a.lockCandidates(ctx, cands, existing, opts); err != nil {
		return err
	}
	rewriteErr := a.rewriteConfigs(cfgs, cands, lockPath, *f.write)
	var failed []string
	for _, c := range cands {
		if c.err != nil {
			failed = append(failed, c.name)
		}
	}
	if len(failed) > 0 {
		first := cands[slices.IndexFunc(cands, func(c *candidate) bool { return c.err != nil })]
		left := "their entries in the client config were left as they are"
		if len(failed) == 1 {
			left = "its entry in the client config was left as it is"
		}
		return withCode(first.err, fmt.Errorf("import: could not lock %s (see above); %s", strings.Join(failed, ", "), left))
	}
	return rewriteErr
}

// entryEnv is the names passed through for an entry: its env keys and the
// names its envFile defines.
func entryEnv(e clientconfig.Entry) []string {
	env := append(append([]string{}, e.EnvNames...), e.EnvFileNames...)
	slices.Sort(env)
	return slices.Compact(env)
}

func entryLabel(e clientconfig.Entry) string {
	l := quoteArg(e.Name)
	if e.Scope != "" {
		l += " [" + quoteArg(e.Scope) + "]"
	}
	return l
}

// checkImportable returns why a lockable entry cannot go into mcp.lock ("" if it can).
func checkImportable(e clientconfig.Entry, existing *lockfile.File, lockPath string) string {
	if err := lockfile.ValidName(e.Name); err != nil {
		return "the name cannot be a name in mcp.lock (it takes 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit); rename the server in the client config and import again"
	}
	env := entryEnv(e)
	for _, n := range env {
		if !lockfile.ValidEnvName(n) {
			return fmt.Sprintf("env name %s is not a variable name mcpsum can pass through; fix it in the client config", quoteArg(n))
		}
	}
	if existing != nil {
		if old := existing.Servers[e.Name]; old != nil && (!slices.Equal(old.Command, e.Argv) || !slices.Equal(old.EnvPassthrough, env)) {
			return fmt.Sprintf("%s already has a server %s with another command or env (%s); rename the server in the client config, or replace the lock entry first: mcpsum lock --lockfile %s --name %s -- %s",
				quoteArg(lockPath), quoteArg(e.Name), quoteArgs(old.Command), quoteArg(lockPath), quoteArg(e.Name), quoteArgs(e.Argv))
		}
	}
	return ""
}

// lockCandidates locks every candidate in parallel and writes those that
// locked (one failure does not hold back the others).
func (a *app) lockCandidates(ctx context.Context, cands []*candidate, existing *lockfile.File, opts pin.Options) error {
	lockPath := opts.Lockfile
	var names []string
	for _, c := range cands {
		names = append(names, c.name)
	}
	p := newProgress(a.stderr, names)
	results := pin.Each(ctx, names, func(ctx context.Context, n string) (*lockfile.Server, error) {
		c := byCandidate(cands, n)
		prefer := ""
		var policy *lockfile.Policy
		if existing != nil && existing.Servers[n] != nil {
			prefer, policy = existing.Servers[n].Era(), existing.Servers[n].Policy
		}
		e, err := pin.Lock(ctx, n, c.argv, c.env, prefer, policy, opts)
		p.done(n, e, err)
		return e, err
	})
	p.stop()
	entries := map[string]*lockfile.Server{}
	for i, r := range results {
		cands[i].entry, cands[i].err = r.Entry, r.Err
		if r.Err == nil {
			entries[cands[i].name] = r.Entry
		}
	}
	if len(entries) == 0 {
		return nil
	}
	shadows, err := a.writeEntries(lockPath, nil, entries)
	if err != nil {
		return err
	}
	a.printLockWarnings(lockPath, entries, nil)
	for _, s := range shadows {
		fmt.Fprintf(a.stdout, "  shadow %s\n", s)
	}
	return nil
}

func byCandidate(cands []*candidate, name string) *candidate {
	for _, c := range cands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// importAgain is the rest of an import command line that reads cfg again
// into lockPath.
func importAgain(cfg *clientconfig.Config, lockPath string) string {
	return fmt.Sprintf("--lockfile %s --client %s %s", quoteArg(lockPath), cfg.Client.Name, quoteArg(cfg.Path))
}
