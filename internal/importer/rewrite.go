package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
)

// Rewrite is the change of one config: each locked entry's command and args
// become `mcpsum proxy`.
type Rewrite struct {
	Config *clientconfig.Config
	Argv   map[clientconfig.Key][]string
	// URLs, when import points the config at mcpsum serve, are the serve
	// URLs each entry gets in place of its whole value (Argv is then empty).
	URLs  map[clientconfig.Key]string
	Notes []string // remarks on the proxy command lines (deduplicated)
	// Snippet, for a format mcpsum does not rewrite (Codex's TOML), is the
	// text to paste in place of each entry's lines; Data and Changes are
	// then empty.
	Snippet string
	Data    []byte // the rewritten file
	Changes []clientconfig.Change
	Err     error // the rewrite failed: nothing to write
}

// Rewrites plans the change of every config of g with a locked server (a
// candidate whose Err is nil). self is this mcpsum's absolute path; serve,
// when set, is mcpsum serve's base URL (ServeBase): each entry then points
// at the server's URL there instead of running mcpsum proxy.
func Rewrites(g *Group, self, serve string) []*Rewrite {
	var out []*Rewrite
	for _, cfg := range g.Configs {
		rw := &Rewrite{Config: cfg, Argv: map[clientconfig.Key][]string{}}
		if serve != "" {
			rw.URLs = map[clientconfig.Key]string{}
		}
		for _, c := range g.Cands {
			if c.Err != nil {
				continue
			}
			for _, w := range c.Where {
				if w.Config == cfg && serve != "" {
					rw.URLs[w.Key] = clientconfig.ServeURL(serve, c.Name)
				} else if w.Config == cfg {
					v, n := ProxyArgv(cfg, self, g.Lock, c.Name)
					rw.Argv[w.Key] = v
					for _, x := range n {
						if !slices.Contains(rw.Notes, x) {
							rw.Notes = append(rw.Notes, x)
						}
					}
				}
			}
		}
		if len(rw.Argv)+len(rw.URLs) == 0 {
			continue
		}
		if serve != "" {
			rw.serve()
			out = append(out, rw)
			continue
		}
		if !cfg.CanRewrite() {
			var b strings.Builder
			for _, e := range cfg.Entries {
				if v, ok := rw.Argv[e.Key()]; ok {
					b.WriteString(clientconfig.TOMLSnippet(cfg.Client.Roots[0][0], e, v))
				}
			}
			rw.Snippet = b.String()
		} else {
			rw.Data, rw.Changes, rw.Err = cfg.Rewrite(rw.Argv)
		}
		out = append(out, rw)
	}
	return out
}

// Write writes a rewritten config, its backup beside it and the record of
// both in stateDir; it returns the backup's path.
func (rw *Rewrite) Write(stateDir string, now time.Time) (string, error) {
	cfg := rw.Config
	var changes []clientconfig.EntryChange
	for _, e := range cfg.Entries {
		if v, ok := rw.Argv[e.Key()]; ok {
			changes = append(changes, e.Change(cfg.Src, v))
		}
		if u, ok := rw.URLs[e.Key()]; ok {
			after, err := cfg.Client.ServeEntry(u)
			if err != nil {
				return "", err
			}
			changes = append(changes, e.ServeChange(cfg.Src, after))
		}
	}
	return clientconfig.Write(cfg.Path, cfg.Src, rw.Data, clientconfig.WriteOptions{
		Now: now, StateDir: stateDir, Client: cfg.Client.Name, Changes: changes, Project: cfg.ProjectDir()})
}

// ProxyArgv is the command line a client runs for server name: this
// mcpsum by its absolute path, in every config alike (a client started from
// a desktop often lacks the shell's PATH, and a project config that named
// "mcpsum" would fail there while user configs worked). A project config
// (committed, shared) gets the client's workspace variable for the lockfile
// when the client has one; otherwise the lockfile's absolute path, with a
// note.
func ProxyArgv(cfg *clientconfig.Config, self, lockPath, name string) ([]string, []string) {
	lockAbs, err := filepath.Abs(lockPath)
	if err != nil {
		lockAbs = lockPath
	}
	if !cfg.Location.Project() {
		return []string{self, "proxy", "--lockfile", lockAbs, "--name", name}, nil
	}
	notes := []string{fmt.Sprintf("%s is a project config: it now names this machine's mcpsum, %s; whoever clones the project runs mcpsum import on it to get their own", q(cfg.Path), q(self))}
	lockArg := lockAbs
	projAbs := cfg.ProjectDir()
	rel, err := filepath.Rel(projAbs, lockAbs)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	switch {
	case cfg.Client.WorkspaceVar != "" && inside:
		lockArg = cfg.Client.WorkspaceVar + "/" + filepath.ToSlash(rel)
	case cfg.Client.WorkspaceVar == "":
		notes = append(notes, fmt.Sprintf("%s has no workspace variable for project configs, so %s gets the lockfile's absolute path %s", cfg.Client.Title, q(cfg.Path), q(lockAbs)))
	default:
		notes = append(notes, fmt.Sprintf("the lockfile %s is outside the project, so %s gets its absolute path", q(lockAbs), q(cfg.Path)))
	}
	return []string{self, "proxy", "--lockfile", lockArg, "--name", name}, notes
}

// SelfPath is this mcpsum binary's absolute path, symlinks resolved.
func SelfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the mcpsum binary's path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Abs(exe)
}

// IsThisMcpsum reports whether a config's command names this mcpsum (at
// self): the bare name "mcpsum" (which the client looks up on its PATH, as
// earlier versions of import wrote it for project configs) or a path to
// this very binary. A relative or other path named mcpsum may be any
// program, e.g. one committed beside a cloned repository's config.
func IsThisMcpsum(command, self string) bool {
	if command == "mcpsum" || command == "mcpsum.exe" {
		return true
	}
	if self == "" || !filepath.IsAbs(command) {
		return false
	}
	if r, err := filepath.EvalSymlinks(command); err == nil {
		command = r
	}
	return command == self
}

// Shared lists the candidates that come from a project config (a cloned
// repository chooses their commands), one line each, and the files: import
// starts them only when the user trusts the project.
func Shared(groups []*Group) (lines, files []string) {
	for _, g := range groups {
		for _, c := range g.Cands {
			for _, w := range c.Where {
				if w.Config.Shared {
					what := qs(c.Target.Command)
					if c.Target.Remote() {
						what = "remote " + q(c.Target.URL)
					}
					lines = append(lines, fmt.Sprintf("  %s (%s): %s", w.Label, q(w.Config.Path), what))
					if !slices.Contains(files, w.Config.Path) {
						files = append(files, w.Config.Path)
					}
					break
				}
			}
		}
	}
	return lines, files
}

// serve plans the change of a config whose entries point at mcpsum serve:
// the rewritten file, or for Codex's TOML the tables to paste; a note for
// each entry whose env the client no longer passes (serve passes the
// locked envPassthrough from its own environment).
func (rw *Rewrite) serve() {
	cfg := rw.Config
	if err := cfg.Client.CanServe(); err != nil {
		rw.Err = err
		return
	}
	for _, e := range cfg.Entries {
		if _, ok := rw.URLs[e.Key()]; ok && len(e.EnvNames) > 0 && e.Status != clientconfig.Remote {
			rw.Notes = append(rw.Notes, fmt.Sprintf("%s: the entry's env (%s) goes with it; mcpsum serve passes the server these variables from its own environment, so start serve with them set (the backup keeps their values)", Label(e), strings.Join(e.EnvNames, ", ")))
		}
	}
	rw.Notes = append(rw.Notes, fmt.Sprintf("%s sends mcpsum serve's token from the environment variable %s: set it to the content of serve's --token-file where %s starts", cfg.Client.Title, clientconfig.ServeTokenEnv, cfg.Client.Title))
	if !cfg.CanRewrite() {
		var b strings.Builder
		for _, e := range cfg.Entries {
			if u, ok := rw.URLs[e.Key()]; ok {
				b.WriteString(clientconfig.ServeSnippet(cfg.Client.Roots[0][0], e.Name, u))
			}
		}
		rw.Snippet = b.String()
		return
	}
	rw.Data, rw.Changes, rw.Err = cfg.RewriteServe(rw.URLs)
}

// ServeBase checks import's --serve-url (mcpsum serve's base URL).
func ServeBase(raw string) (string, error) { return clientconfig.ServeBase(raw) }
