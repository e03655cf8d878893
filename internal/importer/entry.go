package importer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// planner plans one config of a group.
type planner struct {
	ctx   context.Context
	o     Options
	g     *Group
	cfg   *clientconfig.Config
	lines []Line
}

func (p *planner) say(verb, format string, args ...any) {
	p.lines = append(p.lines, Line{verb, fmt.Sprintf(format, args...)})
}

// config plans every entry of the config.
func (p *planner) config() {
	cfg := p.cfg
	if cfg.Shared {
		p.say("", "a project config: a cloned repository can ship it, so import --write starts its commands only with --trust-project (or your yes in a terminal)")
	}
	if cfg.Empty {
		p.say("", "the file is empty: no servers to import")
		return
	}
	if err := clientconfig.CheckWritable(cfg.Path, cfg.ProjectDir()); cfg.CanRewrite() && errors.Is(err, clientconfig.ErrLeavesProject) {
		p.say("skip", "every server of it: %s", esc(err.Error()))
		p.g.Refused = append(p.g.Refused, cfg.Path)
		return
	}
	if len(cfg.Entries) == 0 {
		p.say("", "no servers in it")
	}
	left := p.leaveOtherProjects()
	for _, n := range cfg.ReadEnvFiles(p.o.Dirs.Home) {
		p.say("note", "%s", esc(n))
	}
	for _, e := range cfg.Entries {
		if left[e.Scope] {
			continue
		}
		if c := p.entry(e); c != nil {
			p.g.Cands = append(p.g.Cands, c)
		}
	}
}

// entry plans one entry and returns a new candidate (nil when it is
// skipped or joins an existing one).
func (p *planner) entry(e clientconfig.Entry) *Candidate {
	label, lockPath, existing := Label(e), p.g.Lock, p.g.Existing
	switch e.Status {
	case clientconfig.Lockable:
	case clientconfig.Remote:
		if e.Endpoint.Refused != "" {
			p.say("skip", "%s: %s: %s", label, esc(e.Endpoint.Host), esc(e.Endpoint.Refused))
			return nil
		}
	case clientconfig.Wrapped:
		note := ""
		if existing == nil || existing.Servers[e.Proxy.Name] == nil {
			note = fmt.Sprintf(" (but %s has no server %s)", q(lockPath), q(e.Proxy.Name))
		}
		p.say("skip", "%s: %s%s", label, esc(e.Note), note)
		if !IsThisMcpsum(e.Argv[0], p.o.Self) {
			p.say("warn", "%s: it runs %s, a program named mcpsum that is not this mcpsum: a config (a cloned repository's) can ship its own; check that program before trusting the entry, or put the server's own command back in the entry and import again", label, q(e.Argv[0]))
		}
		return nil
	case clientconfig.Interpolated:
		p.say("skip", "%s: %s; lock it by hand with the value it has (mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...), then set the entry's command and args to: mcpsum proxy --lockfile %s --name %s",
			label, esc(e.Note), q(lockPath), q(e.Name), q(lockPath), q(e.Name))
		return nil
	default:
		if e.Endpoint.Host != "" {
			p.say("skip", "%s: %s: %s", label, esc(e.Endpoint.Host), esc(e.Note))
		} else {
			p.say("skip", "%s: %s", label, esc(e.Note))
		}
		return nil
	}
	if e.Disabled && !p.o.IncludeDisabled {
		p.say("skip", "%s: disabled in the client config (the client does not start it); to lock it too: mcpsum import --include-disabled %s", label, importAgain(p.cfg, lockPath))
		return nil
	}
	if why := Unimportable(e, existing, lockPath); why != "" {
		if existing != nil && existing.Servers[e.Name] != nil && lockfile.ValidName(e.Name) == nil {
			// The entry of that name is another client's: lock this one
			// under a name of its own, which leaves that client as it is.
			alt, old := p.ownName(e.Name), existing.Servers[e.Name]
			was := qs(old.Command)
			if old.Remote() {
				was = "a remote server"
			}
			why = fmt.Sprintf("%s already has a server %s with another %s (%s), which other clients may run; to keep theirs as it is, lock this one under a name of its own: %s, then set this entry's command and args to: mcpsum proxy --lockfile %s --name %s (or rename the server in this client config and import again)",
				q(lockPath), q(e.Name), differs(Target(e)), was, LockCommand(lockPath, alt, Target(e)), q(lockPath), q(alt))
		}
		p.say("skip", "%s: %s", label, why)
		return nil
	}
	target := Target(e)
	ref := Ref{p.cfg, e.Key(), label}
	if i := slices.IndexFunc(p.g.Cands, func(c *Candidate) bool { return c.Name == e.Name }); i >= 0 {
		c := p.g.Cands[i]
		if !sameTarget(c.Target, target) {
			alt := p.ownName(e.Name)
			p.say("skip", "%s: another config has a server %s with a different %s; to keep that one as it is, lock this one under a name of its own: %s, then set this entry's command and args to: mcpsum proxy --lockfile %s --name %s (or rename one of them in its client config and import again)",
				label, q(e.Name), differs(target), LockCommand(lockPath, alt, target), q(lockPath), q(alt))
			return nil
		}
		c.Where = append(c.Where, ref)
		p.say("lock", "%s: %s (same as above)", label, describeTarget(target))
		return nil
	}
	text := describeTarget(target)
	if len(target.EnvPassthrough) > 0 {
		text += fmt.Sprintf(" (env passed through: %s)", strings.Join(target.EnvPassthrough, ", "))
	}
	p.say("lock", "%s: %s", label, text)
	if !target.Remote() {
		p.warnUnpinned(e)
	}
	if e.Cwd != "" {
		p.say("warn", "%s: the entry sets cwd %s, but mcpsum runs every locked server in the lockfile's folder, so a relative path in its command resolves there under lock, verify and proxy: make it absolute in the client config (or relative to the lockfile's folder), then import again",
			q(e.Name), q(e.Cwd))
	}
	return &Candidate{Name: e.Name, Target: target, Where: []Ref{ref}}
}

// Target is what a lockable entry locks as: its argv and the names passed
// through, or a remote entry's URL and header variables.
func Target(e clientconfig.Entry) *lockfile.Server {
	if e.Status == clientconfig.Remote {
		h := map[string]string{}
		for n, v := range e.Endpoint.Headers {
			h[n] = v
		}
		return &lockfile.Server{URL: e.Endpoint.URL, Headers: h}
	}
	return &lockfile.Server{Command: e.Argv, EnvPassthrough: EntryEnv(e)}
}

func sameTarget(a, b *lockfile.Server) bool {
	return a.URL == b.URL && slices.Equal(a.Command, b.Command) && slices.Equal(a.EnvPassthrough, b.EnvPassthrough) && mapsEqual(a.Headers, b.Headers)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func differs(t *lockfile.Server) string {
	if t.Remote() {
		return "URL or headers"
	}
	return "command or env"
}

// describeTarget is what a plan line says an entry locks.
func describeTarget(t *lockfile.Server) string {
	if !t.Remote() {
		return qs(t.Command)
	}
	s := "remote " + q(t.URL)
	if len(t.Headers) > 0 {
		s += " (headers: " + HeaderList(t.Headers) + ")"
	}
	return s
}

// HeaderList is "Authorization from $TOKEN, X-Team from $TEAM", sorted.
func HeaderList(h map[string]string) string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = n + " from $" + h[n]
	}
	return strings.Join(names, ", ")
}

// LockCommand is the mcpsum lock command line that locks target as name.
func LockCommand(lockPath, name string, target *lockfile.Server) string {
	return launch.LockCommand(lockPath, name, target, "")
}

// leaveOtherProjects says which scopes (per-project entries of other
// projects: ~/.claude.json keeps every project's servers under
// projects.<dir>) import leaves out, and says so: importing from one
// project must not lock another's servers into its lock.
func (p *planner) leaveOtherProjects() map[string]bool {
	here := RealAbs(p.o.Dirs.Project)
	left := map[string][]string{}
	var scopes []string
	for _, e := range p.cfg.Entries {
		if e.Scope == "" || RealAbs(e.Scope) == here {
			continue
		}
		if left[e.Scope] == nil {
			scopes = append(scopes, e.Scope)
		}
		left[e.Scope] = append(left[e.Scope], q(e.Name))
	}
	out := map[string]bool{}
	for _, s := range scopes {
		out[s] = true
		p.say("left", "%s: servers of the project %s, not this one (%s); to import them: cd %s && mcpsum import %s",
			strings.Join(left[s], ", "), q(s), q(here), q(s), importAgainArgs(p.cfg))
	}
	return out
}

// RealAbs is p made absolute with its links resolved (p itself when that fails).
func RealAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// EntryEnv is the names passed through for an entry: its env keys and the
// names its envFile defines.
func EntryEnv(e clientconfig.Entry) []string {
	env := append(append([]string{}, e.EnvNames...), e.EnvFileNames...)
	slices.Sort(env)
	return slices.Compact(env)
}

// Label is how the plan names an entry: its name, and its scope if any.
func Label(e clientconfig.Entry) string {
	l := q(e.Name)
	if e.Scope != "" {
		l += " [" + q(e.Scope) + "]"
	}
	return l
}

// Unimportable returns why a lockable entry cannot go into the lockfile
// ("" if it can).
func Unimportable(e clientconfig.Entry, existing *lockfile.File, lockPath string) string {
	if err := lockfile.ValidName(e.Name); err != nil {
		return "the name cannot be a name in mcp.lock (it takes 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit); rename the server in the client config and import again"
	}
	for _, n := range EntryEnv(e) {
		if !lockfile.ValidEnvName(n) {
			return fmt.Sprintf("env name %s is not a variable name mcpsum can pass through; fix it in the client config", q(n))
		}
	}
	if existing == nil {
		return ""
	}
	old := existing.Servers[e.Name]
	if old == nil {
		return ""
	}
	target := Target(e)
	if old.Remote() != target.Remote() || old.URL != target.URL || !slices.Equal(old.Command, target.Command) ||
		!slices.Equal(old.EnvPassthrough, target.EnvPassthrough) || old.Remote() && !mapsEqual(old.Headers, target.Headers) {
		was := qs(old.Command)
		if old.Remote() {
			was = "a remote server"
		}
		return fmt.Sprintf("%s already has a server %s with another %s (%s); rename the server in the client config, or replace the lock entry first: %s",
			q(lockPath), q(e.Name), differs(target), was, LockCommand(lockPath, e.Name, target))
	}
	return ""
}

// importAgain is the rest of an import command line that reads cfg again
// into lockPath.
func importAgain(cfg *clientconfig.Config, lockPath string) string {
	return fmt.Sprintf("--lockfile %s %s", q(lockPath), importAgainArgs(cfg))
}

func importAgainArgs(cfg *clientconfig.Config) string {
	return fmt.Sprintf("--client %s %s", cfg.Client.Name, q(cfg.Path))
}

// ownName is a name for this config's server called name that no server
// of the lock and no other candidate has: name-CLIENT, then name-CLIENT-2,
// and so on (cut to the 64 characters a lock name may have).
func (p *planner) ownName(name string) string {
	taken := func(n string) bool {
		if p.g.Existing != nil && p.g.Existing.Servers[n] != nil {
			return true
		}
		return slices.ContainsFunc(p.g.Cands, func(c *Candidate) bool { return c.Name == n })
	}
	base := name + "-" + p.cfg.Client.Name
	if len(base) > 60 {
		base = base[:60]
	}
	alt := base
	for i := 2; taken(alt) || lockfile.ValidName(alt) != nil; i++ {
		alt = fmt.Sprintf("%s-%d", base, i)
		if i > 1000 {
			break
		}
	}
	return alt
}
