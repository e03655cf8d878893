package clientconfig

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/safeio"
)

// ProjectDir is the project folder of a project config, this project's or
// another's (the file's path minus its location's), or "" for a user config.
func (cfg *Config) ProjectDir() string {
	if !cfg.Location.Project() && !cfg.Shared {
		return ""
	}
	dir, err := filepath.Abs(cfg.Path)
	if err != nil {
		return ""
	}
	for range strings.Split(cfg.Location.Rel, "/") {
		dir = filepath.Dir(dir)
	}
	return dir
}

// ReadEnvFiles reads the variable *names* of each lockable entry's envFile
// into EnvFileNames (the client passes those variables to the server, so the
// proxy must pass them through too). Values are never kept or shown, not
// even in a note. A file is read only from where the config's owner keeps
// files: a project config's envFile must be inside the project, a user
// config's inside the folder of the config file (never the home folder
// itself, home): a cloned repository's envFile of
// "${workspaceFolder}/../../.docker/config.json" is not read. It returns a
// note per entry whose file it does not read or whose path it cannot
// resolve (a variable other than the workspace folder).
func (cfg *Config) ReadEnvFiles(home string) []string {
	var notes []string
	for i := range cfg.Entries {
		e := &cfg.Entries[i]
		if e.Status != Lockable || e.EnvFile == "" {
			continue
		}
		path := e.EnvFile
		if rest, ok := strings.CutPrefix(path, cfg.Client.WorkspaceVar); ok && cfg.Client.WorkspaceVar != "" {
			if cfg.ProjectDir() == "" {
				notes = append(notes, fmt.Sprintf("%s: envFile %q uses %s outside a project config; its variables are not passed through: add them to env, then import again", e.Name, e.EnvFile, cfg.Client.WorkspaceVar))
				continue
			}
			path = filepath.Join(cfg.ProjectDir(), filepath.FromSlash(rest))
		}
		if strings.Contains(path, "${") || !filepath.IsAbs(path) {
			notes = append(notes, fmt.Sprintf("%s: envFile %q is not an absolute path mcpsum can resolve; its variables are not passed through: add them to env, then import again", e.Name, e.EnvFile))
			continue
		}
		names, err := cfg.envFileNames(path, home)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: envFile: %v; its variables are not passed through: add their names to env, then import again", e.Name, err))
			continue
		}
		e.EnvFileNames = names
	}
	return notes
}

// envFileRoot is the folder an envFile of cfg must be in ("" when none may
// be read).
func (cfg *Config) envFileRoot(home string) (string, string) {
	if d := cfg.ProjectDir(); d != "" {
		return d, "the project"
	}
	d, err := filepath.Abs(cfg.Path)
	if err != nil {
		return "", ""
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	d = filepath.Dir(d)
	if h, err := filepath.EvalSymlinks(home); err == nil && h == d || home == d {
		return "", ""
	}
	return d, "the config's folder"
}

// maxEnvFile caps an envFile read (a dotenv file is a few KiB).
const maxEnvFile = 1 << 20

// envFileNames returns the names a dotenv file defines: NAME=value lines,
// with an optional "export " prefix; comments and blank lines skipped. Any
// other line refuses the whole file (it is not a dotenv file, and its text
// may be a secret: the error names the line by number only).
func (cfg *Config) envFileNames(path, home string) ([]string, error) {
	root, what := cfg.envFileRoot(home)
	if root == "" {
		return nil, fmt.Errorf("%s: a config in the home folder itself may not name an envFile (mcpsum reads one only from the config's own folder)", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	if realRoot, err := filepath.EvalSymlinks(root); err == nil {
		root = realRoot
	}
	if !underDir(real, root) {
		return nil, fmt.Errorf("%s is outside %s (%s), so mcpsum does not read it", path, what, root)
	}
	data, err := safeio.ReadRegular(real, "envFile", maxEnvFile)
	if err != nil {
		return nil, err
	}
	var names []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, _, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !validEnvName(name) {
			return nil, fmt.Errorf("%s: line %d is not NAME=value with a variable name, so it is not a dotenv file mcpsum reads", path, i+1)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// validEnvName: letters, digits and '_', not starting with a digit.
func validEnvName(n string) bool {
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		return false
	}
	for _, c := range []byte(n) {
		if c != '_' && !(c >= '0' && c <= '9') && !(c|0x20 >= 'a' && c|0x20 <= 'z') {
			return false
		}
	}
	return true
}
