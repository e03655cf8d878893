package importer

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Options say how to plan.
type Options struct {
	Dirs clientconfig.Dirs
	// Lockfile is the lockfile the user named (--lockfile); "" picks one
	// per config (DefaultLockfile).
	Lockfile string
	// IncludeDisabled also locks the entries a config switches off.
	IncludeDisabled bool
	// Resolve asks the package manager for the version of an unpinned
	// npx/uvx package (it runs npm view or pip index).
	Resolve bool
	// Self is this mcpsum's absolute path: the program rewritten entries run.
	Self string
}

// Line is one line of the plan: a verb (skip, lock, warn, note, left; ""
// for a remark) and its text, already quoted for a terminal.
type Line struct{ Verb, Text string }

// Section is what the plan says about one config.
type Section struct {
	Config *clientconfig.Config
	Lines  []Line
}

// Ref is one config entry a candidate came from.
type Ref struct {
	Config *clientconfig.Config
	Key    clientconfig.Key
	Label  string
}

// Candidate is one server to lock, possibly used by several configs.
type Candidate struct {
	Name string
	// Target is what to lock: Command and EnvPassthrough of a local server,
	// or URL and Headers of a remote one.
	Target *lockfile.Server
	Where  []Ref
	// Entry and Err are the outcome of locking it (set by the caller).
	Entry *lockfile.Server
	Err   error
}

// Group is the configs whose servers go into one lockfile.
type Group struct {
	Lock     string
	Configs  []*clientconfig.Config
	Existing *lockfile.File // nil when the lockfile does not exist yet
	Sections []Section
	Cands    []*Candidate
	Refused  []string // project configs whose real file leaves the project
}

// Plan assigns each config its lockfile and decides, entry by entry, what
// import does. Nothing is started or written (with Resolve, the package
// manager's lookup runs).
func Plan(ctx context.Context, cfgs []*clientconfig.Config, o Options) ([]*Group, error) {
	var groups []*Group
	for _, cfg := range cfgs {
		lock := o.Lockfile
		if lock == "" {
			var err error
			if lock, err = DefaultLockfile(o.Dirs, cfg); err != nil {
				return nil, err
			}
		}
		i := slices.IndexFunc(groups, func(g *Group) bool { return g.Lock == lock })
		if i < 0 {
			groups = append(groups, &Group{Lock: lock})
			i = len(groups) - 1
		}
		groups[i].Configs = append(groups[i].Configs, cfg)
	}
	for _, g := range groups {
		var err error
		g.Existing, err = lockfile.Load(g.Lock)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			g.Existing = nil
		case err != nil:
			return nil, err
		}
		for _, cfg := range g.Configs {
			p := &planner{ctx: ctx, o: o, g: g, cfg: cfg}
			p.config()
			g.Sections = append(g.Sections, Section{Config: cfg, Lines: p.lines})
		}
	}
	return groups, nil
}

// DefaultLockfile is the lockfile of cfg when the user named none:
// PROJECT/mcp.lock for a project config or one inside the project folder,
// and $XDG_CONFIG_HOME/mcpsum/mcp.lock for the user's own configs elsewhere.
func DefaultLockfile(dirs clientconfig.Dirs, cfg *clientconfig.Config) (string, error) {
	if cfg.Location.Project() || clientconfig.UnderDir(cfg.Path, dirs.Project) {
		if dirs.Project == "." || dirs.Project == "" {
			return "mcp.lock", nil
		}
		return filepath.Join(dirs.Project, "mcp.lock"), nil
	}
	if dirs.XDGConfig == "" {
		return "", hint.New("no folder for the lock of your user configs (neither XDG_CONFIG_HOME nor HOME is set)", "name one with --lockfile")
	}
	return filepath.Join(dirs.XDGConfig, "mcpsum", "mcp.lock"), nil
}

// Count is the number of servers the groups would lock.
func Count(groups []*Group) int {
	n := 0
	for _, g := range groups {
		n += len(g.Cands)
	}
	return n
}

// RefusedError is the verdict on project configs import would not write
// (nil when there are none).
func RefusedError(groups []*Group) error {
	var files []string
	for _, g := range groups {
		for _, p := range g.Refused {
			files = append(files, q(p))
		}
	}
	if len(files) == 0 {
		return nil
	}
	return &RefusedConfigError{Files: files}
}

// RefusedConfigError says which project configs import leaves alone because
// their real file is outside the project: a security verdict.
type RefusedConfigError struct{ Files []string }

func (e *RefusedConfigError) Error() string {
	return fmt.Sprintf("import: %s left as it is: a project config whose real file is outside the project is never written (see above)", strings.Join(e.Files, ", "))
}

// Failed names the candidates whose lock failed and returns the first one's
// error (nil when all locked).
func Failed(cands []*Candidate) ([]string, error) {
	var names []string
	var first error
	for _, c := range cands {
		if c.Err != nil {
			names = append(names, c.Name)
			if first == nil {
				first = c.Err
			}
		}
	}
	return names, first
}

func q(s string) string    { return termtext.ShellArg(s) }
func qs(s []string) string { return termtext.ShellArgs(s) }

// esc is untrusted text (a config's, a server's) made safe for a terminal.
func esc(s string) string { t, _ := termtext.Quote(s); return t }
