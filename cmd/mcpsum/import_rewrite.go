package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/pkgspec"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/clientconfig"
)

// warnUnpinned warns about an npx/bunx/uvx package without an exact version
// and gives the pinned spelling. The version is never guessed: without
// --resolve-versions the message names the package manager's command that
// prints it; with it, mcpsum runs that command and says so.
func (a *app) warnUnpinned(ctx context.Context, e clientconfig.Entry, resolve bool) {
	u := pkgspec.FindUnpinned(e.Argv)
	if u == nil {
		return
	}
	fmt.Fprintf(a.stdout, "  warn   %s: %s is not pinned to a version: %s fetches the newest matching release at every start, so what runs can change under the lock.\n",
		quoteArg(e.Name), quoteArg(u.Spec), quoteArg(e.Argv[0]))
	version, how := "", ""
	if resolve {
		v, err := lookupVersion(ctx, u)
		if err != nil {
			how = fmt.Sprintf(" (%s failed: %v)", quoteArgs(u.Lookup), err)
		} else {
			version, how = v, fmt.Sprintf(" (%s answered %s just now)", quoteArgs(u.Lookup), v)
		}
	}
	if version == "" {
		fmt.Fprintf(a.stdout, "         pin it: write %s in the client config, with VERSION from: %s%s\n",
			quoteArg(u.Pinned("VERSION")), quoteArgs(u.Lookup), how)
		return
	}
	fmt.Fprintf(a.stdout, "         pin it: write %s in the client config%s, i.e. run %s\n",
		quoteArg(u.Pinned(version)), how, quoteArgs(u.PinnedArgv(e.Argv, version)))
}

var pipVersion = regexp.MustCompile(`^\S+ \(([^)\s]+)\)`)

// lookupVersion runs the package manager's own lookup command.
func lookupVersion(ctx context.Context, u *pkgspec.Unpinned) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	args := u.Lookup
	if u.Ecosystem == "npm" {
		args = append(append([]string{}, args...), "--json")
	}
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).Output()
	if err != nil {
		return "", err
	}
	var v string
	if u.Ecosystem == "npm" {
		var list []string
		switch {
		case json.Unmarshal(out, &v) == nil:
		case json.Unmarshal(out, &list) == nil && len(list) > 0:
			v = list[len(list)-1] // a range: npm lists the matching versions, newest last
		default:
			return "", fmt.Errorf("unexpected answer %q", oneLine(string(out), 80))
		}
	} else {
		m := pipVersion.FindSubmatch(out)
		if m == nil {
			return "", fmt.Errorf("unexpected answer %q", oneLine(string(out), 80))
		}
		v = string(m[1])
	}
	if v == "" || strings.ContainsAny(v, " \t\n\"'") {
		return "", fmt.Errorf("unexpected version %q", v)
	}
	return v, nil
}

// rewriteConfigs shows (or, with write, makes) the change of every config
// with a locked server: its command and args become mcpsum proxy.
func (a *app) rewriteConfigs(cfgs []*clientconfig.Config, cands []*candidate, lockPath string, write bool) error {
	self, err := selfPath()
	if err != nil {
		return err
	}
	var firstErr error
	for _, cfg := range cfgs {
		argv := map[clientconfig.Key][]string{}
		var notes []string
		for _, c := range cands {
			if c.err != nil {
				continue
			}
			for _, w := range c.where {
				if w.cfg == cfg {
					v, n := proxyArgv(cfg, self, lockPath, c.name)
					argv[w.key] = v
					notes = append(notes, n...)
				}
			}
		}
		if len(argv) == 0 {
			continue
		}
		fmt.Fprintln(a.stdout)
		if !cfg.CanRewrite() {
			fmt.Fprintf(a.stdout, "%s is %s, which mcpsum does not rewrite (it would lose comments). In each table below, replace the command and args lines with these:\n\n", quoteArg(cfg.Path), cfg.Client.Format)
			for _, e := range cfg.Entries {
				if v, ok := argv[e.Key()]; ok {
					fmt.Fprint(a.stdout, clientconfig.TOMLSnippet(cfg.Client.Roots[0][0], e.Name, v))
				}
			}
			continue
		}
		data, changes, err := cfg.Rewrite(argv)
		if err != nil {
			firstErr = firstNonNil(firstErr, err)
			continue
		}
		for _, n := range dedupe(notes) {
			fmt.Fprintf(a.stdout, "note: %s\n", n)
		}
		verb := "would change"
		if write {
			verb = "changes"
		}
		fmt.Fprintf(a.stdout, "%s %s:\n", quoteArg(cfg.Path), verb)
		for _, ch := range changes {
			fmt.Fprintf(a.stdout, "  %s (line %d)\n  - %s\n  + %s\n", entryLabel(clientconfig.Entry{Name: ch.Name, Scope: ch.Scope}), ch.Line, escapeLine(ch.Old), escapeLine(ch.New))
		}
		if !write {
			continue
		}
		if err := a.writeConfig(cfg, data, argv); err != nil {
			firstErr = firstNonNil(firstErr, err)
		}
	}
	return firstErr
}

// writeConfig writes a rewritten config, its backup and the record of both.
func (a *app) writeConfig(cfg *clientconfig.Config, data []byte, argv map[clientconfig.Key][]string) error {
	stateDir, err := statefile.Dir()
	if err != nil {
		return err
	}
	var changes []clientconfig.EntryChange
	for _, e := range cfg.Entries {
		if v, ok := argv[e.Key()]; ok {
			changes = append(changes, clientconfig.EntryChange{Scope: e.Scope, Name: e.Name, Before: e.Argv, After: v})
		}
	}
	backup, err := clientconfig.Write(cfg.Path, cfg.Src, data, clientconfig.WriteOptions{
		Now: time.Now(), StateDir: stateDir, Client: cfg.Client.Name, Changes: changes, Project: cfg.ProjectDir()})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s (backup %s; to restore it: mcpsum import --undo %s)\n", quoteArg(cfg.Path), quoteArg(backup), quoteArg(cfg.Path))
	return nil
}

func escapeLine(s string) string {
	q, _ := quoteText(s)
	return q
}

func firstNonNil(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// selfPath is this mcpsum binary's absolute path, symlinks resolved.
func selfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the mcpsum binary's path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Abs(exe)
}

// isThisMcpsum reports whether a config's command names this mcpsum: the
// bare name "mcpsum" (which the client looks up on its PATH, as earlier
// versions of import wrote it for project configs) or a path to this very
// binary. A relative
// or other path named mcpsum may be any program, e.g. one committed beside
// a cloned repository's config.
func isThisMcpsum(command string) bool {
	if command == "mcpsum" || command == "mcpsum.exe" {
		return true
	}
	self, err := selfPath()
	if err != nil || !filepath.IsAbs(command) {
		return false
	}
	if r, err := filepath.EvalSymlinks(command); err == nil {
		command = r
	}
	return command == self
}

// proxyArgv is the command line a client runs for server name: this
// mcpsum by its absolute path, in every config alike (a client started from
// a desktop often lacks the shell's PATH, and a project config that named
// "mcpsum" would fail there while user configs worked). A project config
// (committed, shared) gets the client's workspace variable for the lockfile
// when the client has one; otherwise the lockfile's absolute path, with a
// note.
func proxyArgv(cfg *clientconfig.Config, self, lockPath, name string) ([]string, []string) {
	lockAbs, err := filepath.Abs(lockPath)
	if err != nil {
		lockAbs = lockPath
	}
	if !cfg.Location.Project() {
		return []string{self, "proxy", "--lockfile", lockAbs, "--name", name}, nil
	}
	notes := []string{fmt.Sprintf("%s is a project config: it now names this machine's mcpsum, %s; whoever clones the project runs mcpsum import on it to get their own", quoteArg(cfg.Path), quoteArg(self))}
	lockArg := lockAbs
	projAbs := cfg.ProjectDir()
	rel, err := filepath.Rel(projAbs, lockAbs)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	switch {
	case cfg.Client.WorkspaceVar != "" && inside:
		lockArg = cfg.Client.WorkspaceVar + "/" + filepath.ToSlash(rel)
	case cfg.Client.WorkspaceVar == "":
		notes = append(notes, fmt.Sprintf("%s has no workspace variable for project configs, so %s gets the lockfile's absolute path %s", cfg.Client.Title, quoteArg(cfg.Path), quoteArg(lockAbs)))
	default:
		notes = append(notes, fmt.Sprintf("the lockfile %s is outside the project, so %s gets its absolute path", quoteArg(lockAbs), quoteArg(cfg.Path)))
	}
	return []string{self, "proxy", "--lockfile", lockArg, "--name", name}, notes
}
