package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/mcpsum/mcpsum/pkg/clientconfig"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// groupByLockfile assigns each config its lockfile: explicit when the user
// named one; otherwise PROJECT/mcp.lock for a config inside the project
// folder (or a project config), and the user lock
// ($XDG_CONFIG_HOME/mcpsum/mcp.lock) for the user's own configs elsewhere.
func groupByLockfile(dirs clientconfig.Dirs, cfgs []*clientconfig.Config, explicit string) ([]*importGroup, error) {
	var groups []*importGroup
	for _, cfg := range cfgs {
		lock := explicit
		if lock == "" {
			var err error
			if lock, err = defaultLockfile(dirs, cfg); err != nil {
				return nil, err
			}
		}
		i := slices.IndexFunc(groups, func(g *importGroup) bool { return g.lock == lock })
		if i < 0 {
			groups = append(groups, &importGroup{lock: lock})
			i = len(groups) - 1
		}
		groups[i].cfgs = append(groups[i].cfgs, cfg)
	}
	return groups, nil
}

func defaultLockfile(dirs clientconfig.Dirs, cfg *clientconfig.Config) (string, error) {
	if cfg.Location.Project() || clientconfig.UnderDir(cfg.Path, dirs.Project) {
		if dirs.Project == "." || dirs.Project == "" {
			return "mcp.lock", nil
		}
		return filepath.Join(dirs.Project, "mcp.lock"), nil
	}
	if dirs.XDGConfig == "" {
		return "", errors.New("no folder for the lock of your user configs (neither XDG_CONFIG_HOME nor HOME is set); name one with --lockfile")
	}
	return filepath.Join(dirs.XDGConfig, "mcpsum", "mcp.lock"), nil
}

// planGroup prints what import does with each entry of g's configs and
// returns the servers to lock. Nothing runs.
func (a *app) planGroup(ctx context.Context, dirs clientconfig.Dirs, g *importGroup, f importFlags) []*candidate {
	var cands []*candidate
	lockPath := g.lock
	for _, cfg := range g.cfgs {
		fmt.Fprintf(a.stdout, "%s (%s), into %s:\n", quoteArg(cfg.Path), cfg.Client.Title, quoteArg(lockPath))
		if cfg.Shared {
			fmt.Fprintln(a.stdout, "  a project config: a cloned repository can ship it, so import --write starts its commands only with --trust-project (or your yes in a terminal)")
		}
		if cfg.Empty {
			fmt.Fprintln(a.stdout, "  the file is empty: no servers to import")
			continue
		}
		if err := clientconfig.CheckWritable(cfg.Path, cfg.ProjectDir()); cfg.CanRewrite() && errors.Is(err, clientconfig.ErrLeavesProject) {
			fmt.Fprintf(a.stdout, "  skip   every server of it: %s\n", escapeLine(err.Error()))
			g.refused = append(g.refused, cfg.Path)
			continue
		}
		if len(cfg.Entries) == 0 {
			fmt.Fprintln(a.stdout, "  no servers in it")
		}
		left := a.leaveOtherProjects(cfg, dirs.Project)
		for _, n := range cfg.ReadEnvFiles(dirs.Home) {
			fmt.Fprintf(a.stdout, "  note   %s\n", escapeLine(n))
		}
		for _, e := range cfg.Entries {
			if left[e.Scope] {
				continue
			}
			if c := a.planEntry(ctx, cfg, e, g, cands, f); c != nil {
				cands = append(cands, c)
			}
		}
	}
	return cands
}

// planEntry prints the plan for one entry and returns a new candidate (nil
// when it is skipped or joins an existing one).
func (a *app) planEntry(ctx context.Context, cfg *clientconfig.Config, e clientconfig.Entry, g *importGroup, cands []*candidate, f importFlags) *candidate {
	label, lockPath, existing := entryLabel(e), g.lock, g.existing
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
		return nil
	case clientconfig.Interpolated:
		fmt.Fprintf(a.stdout, "  skip   %s: %s; lock it by hand with the value it has (mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...), then set the entry's command and args to: mcpsum proxy --lockfile %s --name %s\n",
			label, escapeLine(e.Note), quoteArg(lockPath), quoteArg(e.Name), quoteArg(lockPath), quoteArg(e.Name))
		return nil
	default:
		if e.Host != "" {
			fmt.Fprintf(a.stdout, "  skip   %s: %s: %s\n", label, escapeLine(e.Host), escapeLine(e.Note))
		} else {
			fmt.Fprintf(a.stdout, "  skip   %s: %s\n", label, escapeLine(e.Note))
		}
		return nil
	}
	if e.Disabled && !*f.withDisabled {
		fmt.Fprintf(a.stdout, "  skip   %s: disabled in the client config (the client does not start it); to lock it too: mcpsum import --include-disabled %s\n", label, importAgain(cfg, lockPath))
		return nil
	}
	if err := checkImportable(e, existing, lockPath); err != "" {
		fmt.Fprintf(a.stdout, "  skip   %s: %s\n", label, err)
		return nil
	}
	env := entryEnv(e)
	ref := entryRef{cfg, e.Key(), label}
	if i := slices.IndexFunc(cands, func(c *candidate) bool { return c.name == e.Name }); i >= 0 {
		c := cands[i]
		if !slices.Equal(c.argv, e.Argv) || !slices.Equal(c.env, env) {
			alt := e.Name + "-2"
			fmt.Fprintf(a.stdout, "  skip   %s: another config has a server %s with a different command or env; rename one of them in its client config and import again, or lock this one under another name: %s, then set its command and args to: mcpsum proxy --lockfile %s --name %s\n",
				label, quoteArg(e.Name), lockCommand(lockPath, alt, env, e.Argv), quoteArg(lockPath), quoteArg(alt))
			return nil
		}
		c.where = append(c.where, ref)
		fmt.Fprintf(a.stdout, "  lock   %s: %s (same as above)\n", label, quoteArgs(e.Argv))
		return nil
	}
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
	return &candidate{name: e.Name, argv: e.Argv, env: env, where: []entryRef{ref}}
}

// lockCommand is the mcpsum lock command line that locks argv as name.
func lockCommand(lockPath, name string, env, argv []string) string {
	s := "mcpsum lock --lockfile " + quoteArg(lockPath) + " --name " + quoteArg(name)
	for _, n := range env {
		s += " --env " + quoteArg(n)
	}
	return s + " -- " + quoteArgs(argv)
}

// leaveOtherProjects says which scopes (per-project entries of other
// projects: ~/.claude.json keeps every project's servers under
// projects.<dir>) import leaves out, and prints them: importing from one
// project must not lock another's servers into its lock.
func (a *app) leaveOtherProjects(cfg *clientconfig.Config, project string) map[string]bool {
	here := realAbs(project)
	left := map[string][]string{}
	var scopes []string
	for _, e := range cfg.Entries {
		if e.Scope == "" || realAbs(e.Scope) == here {
			continue
		}
		if left[e.Scope] == nil {
			scopes = append(scopes, e.Scope)
		}
		left[e.Scope] = append(left[e.Scope], quoteArg(e.Name))
	}
	out := map[string]bool{}
	for _, s := range scopes {
		out[s] = true
		fmt.Fprintf(a.stdout, "  left   %s: servers of the project %s, not this one (%s); to import them: cd %s && mcpsum import %s\n",
			strings.Join(left[s], ", "), quoteArg(s), quoteArg(here), quoteArg(s), importAgainArgs(cfg))
	}
	return out
}

func realAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// decideTrust asks before any command of a project config runs: those
// files come with a repository, and starting a server runs its command.
func (a *app) decideTrust(groups []*importGroup, trust bool) error {
	var shared []string
	var files []string
	for _, g := range groups {
		for _, c := range g.cands {
			for _, w := range c.where {
				if w.cfg.Shared {
					shared = append(shared, fmt.Sprintf("  %s (%s): %s", w.label, quoteArg(w.cfg.Path), quoteArgs(c.argv)))
					if !slices.Contains(files, w.cfg.Path) {
						files = append(files, w.cfg.Path)
					}
					break
				}
			}
		}
	}
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
			return fmt.Sprintf("%s already has a server %s with another command or env (%s); rename the server in the client config, or replace the lock entry first: %s",
				quoteArg(lockPath), quoteArg(e.Name), quoteArgs(old.Command), lockCommand(lockPath, e.Name, env, e.Argv))
		}
	}
	return ""
}

// importAgain is the rest of an import command line that reads cfg again
// into lockPath.
func importAgain(cfg *clientconfig.Config, lockPath string) string {
	return fmt.Sprintf("--lockfile %s %s", quoteArg(lockPath), importAgainArgs(cfg))
}

func importAgainArgs(cfg *clientconfig.Config) string {
	return fmt.Sprintf("--client %s %s", cfg.Client.Name, quoteArg(cfg.Path))
}
