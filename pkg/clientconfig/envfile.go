package clientconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/safeio"
)

// ProjectDir is the project folder of a project config (the file's path
// minus its location's), or "" for a user config.
func (cfg *Config) ProjectDir() string {
	if !cfg.Location.Project() {
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
// proxy must pass them through too). Values are skipped, never kept. It
// returns a note per entry whose file it cannot read or whose path it cannot
// resolve (a variable other than the workspace folder).
func (cfg *Config) ReadEnvFiles() []string {
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
		names, err := envFileNames(path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: envFile: %v; its variables are not passed through", e.Name, err))
			continue
		}
		e.EnvFileNames = names
	}
	return notes
}

// maxEnvFile caps an envFile read (a dotenv file is a few KiB).
const maxEnvFile = 1 << 20

// envFileNames returns the names a dotenv file defines: NAME=… lines, with
// an optional "export " prefix; comments and blank lines skipped. Only the
// text before '=' is kept.
func envFileNames(path string) ([]string, error) {
	data, err := safeio.ReadRegular(path, "envFile", maxEnvFile)
	if err != nil {
		return nil, err
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimSpace(strings.TrimPrefix(line, "export "))
		name, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		names = append(names, strings.TrimSpace(name))
	}
	slices.Sort(names)
	return slices.Compact(names), sc.Err()
}
