package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
)

// UserLock is the lockfile of the user's own client configs (import puts
// their servers there): $XDG_CONFIG_HOME/mcpsum/mcp.lock, else
// ~/.config/mcpsum/mcp.lock ("" when neither folder is known).
func UserLock(dirs Dirs) string {
	if dirs.XDGConfig == "" {
		return ""
	}
	return filepath.Join(dirs.XDGConfig, "mcpsum", "mcp.lock")
}

// SameFile reports whether paths a and b name one file: the same file if
// both exist, else the same absolute path with links resolved.
func SameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return realAbs(a) == realAbs(b)
}

func realAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
		return filepath.Join(r, filepath.Base(a))
	}
	return a
}

// Session is one client as it runs: a config file (and, for a config that
// keeps per-project servers such as ~/.claude.json, one project's scope
// with the file's user-level servers), and the entries of one lockfile it
// runs through mcpsum proxy, which a model sees together.
type Session struct {
	Config string // the config file
	Scope  string // "" or the project of a per-project scope
	Names  []string
}

// Sessions lists, for each config given, the entries of the lockfile at
// lock that it runs through `mcpsum proxy --lockfile LOCK --name N`
// (disabled entries left out), one Session per config and scope; configs
// that run none of them are left out. A relative --lockfile is taken
// against the config's folder.
func Sessions(cfgs []*Config, lock string) []Session {
	var out []Session
	for _, cfg := range cfgs {
		base := map[string]bool{}
		scoped := map[string][]string{}
		var scopes []string
		for _, e := range cfg.Entries {
			if e.Status != Wrapped || e.Disabled || e.Proxy.Name == "" {
				continue
			}
			lf := e.Proxy.Lockfile
			if !filepath.IsAbs(lf) {
				lf = filepath.Join(filepath.Dir(cfg.Path), lf)
			}
			if !SameFile(lf, lock) {
				continue
			}
			if e.Scope == "" {
				base[e.Proxy.Name] = true
				continue
			}
			if _, ok := scoped[e.Scope]; !ok {
				scopes = append(scopes, e.Scope)
			}
			scoped[e.Scope] = append(scoped[e.Scope], e.Proxy.Name)
		}
		names := sortedSet(base)
		if len(names) > 0 { // the client outside any project of the file
			out = append(out, Session{Config: cfg.Path, Names: names})
		}
		for _, sc := range scopes {
			all := append(slices.Clone(names), scoped[sc]...)
			slices.Sort(all)
			out = append(out, Session{Config: cfg.Path, Scope: sc, Names: slices.Compact(all)})
		}
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// ReadAll reads every config file found under dirs (every client's);
// files that cannot be read or parsed are skipped: what they run is not
// known, and no session is made up for them.
func ReadAll(dirs Dirs) []*Config {
	var out []*Config
	for _, f := range Find(dirs, nil) {
		if cfg, err := Read(f.Path, f.Client, f.Location); err == nil {
			out = append(out, cfg)
		}
	}
	return out
}

// Planned is cfg as it will be once each entry keyed in runs runs mcpsum
// proxy --lockfile lock --name runs[key] (import's rewrite).
func Planned(cfg *Config, lock string, runs map[Key]string) *Config {
	c := *cfg
	c.Entries = slices.Clone(cfg.Entries)
	for i := range c.Entries {
		e := &c.Entries[i]
		if name, ok := runs[e.Key()]; ok {
			e.Status, e.Proxy.Lockfile, e.Proxy.Name, e.Disabled = Wrapped, lock, name, false
		}
	}
	return &c
}

// Together is, for the user lock, the server names each client session
// found under dirs runs together (Sessions), with the configs of planned
// taking the place of the files they are versions of (an import about to
// rewrite them); nil for any other lockfile (judge all its servers
// together: a project's lock is shared by a team whose clients load all of
// its servers).
func Together(dirs Dirs, lock string, planned []*Config) [][]string {
	if !SameFile(lock, UserLock(dirs)) {
		return nil
	}
	cfgs := slices.DeleteFunc(ReadAll(dirs), func(c *Config) bool {
		return slices.ContainsFunc(planned, func(p *Config) bool { return SameFile(p.Path, c.Path) })
	})
	out := [][]string{}
	for _, s := range Sessions(append(cfgs, planned...), lock) {
		out = append(out, s.Names)
	}
	return out
}
