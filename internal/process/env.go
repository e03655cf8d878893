package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// baseEnv are the variables every server gets when mcpsum has them set.
var baseEnv = []string{"HOME", "PATH", "TMPDIR"}

// BaseEnv returns the names of the variables every server gets besides its
// envPassthrough (each only when set): HOME, PATH, TMPDIR.
func BaseEnv() []string { return slices.Clone(baseEnv) }

// Environ builds a server environment from mcpsum's own: only the variables
// named in names (a lock's envPassthrough) plus PATH, HOME and TMPDIR, each
// only when set. Values are copied, never stored elsewhere. The result is
// sorted by name, so the same inputs give the same environment.
func Environ(names []string) []string {
	all := slices.Concat(names, baseEnv)
	slices.Sort(all)
	all = slices.Compact(all)
	env := make([]string, 0, len(all))
	for _, n := range all {
		if n == "" || strings.Contains(n, "=") {
			continue
		}
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}

// LookPath is the program a server's argv[0] runs with environment env and
// working directory dir, the one rule shared by unsandboxed starts (Start)
// and internal/sandbox (the program bound into the sandbox), so both run the same
// file:
//
//   - argv[0] holding a slash is a path: absolute as written, relative ones
//     resolved against dir (the server's working directory, which internal/launch sets
//     to the lockfile's folder), never against mcpsum's own working directory;
//   - a bare name is searched in PATH (the server's, else mcpsum's), in
//     absolute PATH entries only: empty and relative entries (".", "bin") are
//     skipped, so the current directory is never searched.
//
// It returns an absolute path (symlinks not resolved); dir must be absolute
// when argv0 is a relative path.
func LookPath(argv0 string, env []string, dir string) (string, error) {
	if argv0 == "" {
		return "", errors.New("empty command")
	}
	if strings.Contains(argv0, "/") {
		p := argv0
		if !filepath.IsAbs(p) {
			if !filepath.IsAbs(dir) {
				return "", fmt.Errorf("command %q is a relative path and there is no absolute working directory to resolve it against", argv0)
			}
			p = filepath.Join(dir, p)
			if err := checkExecutable(p); err != nil {
				return "", fmt.Errorf("command %q, relative to the server's working directory %s (the lockfile's folder), is %s, which %w", argv0, dir, p, err)
			}
		}
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("command %q %w", argv0, err)
		}
		return filepath.Clean(p), nil
	}
	pathEnv := pathOf(env)
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue // "", "." and relative entries would search the working directory
		}
		p := filepath.Join(d, argv0)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", hint.Errorf("install it, or put its path in the command",
		"executable %q not found in PATH %q (only absolute PATH entries are searched): %w", argv0, pathEnv, exec.ErrNotFound)
}

// pathOf is the PATH a server's argv[0] is searched in: the server's own PATH
// when env sets one, else mcpsum's.
func pathOf(env []string) string {
	v, set := "", false
	for _, kv := range env {
		if val, ok := strings.CutPrefix(kv, "PATH="); ok {
			v, set = val, true
		}
	}
	if !set {
		return os.Getenv("PATH")
	}
	return v
}

// checkExecutable reports why p cannot be run: missing, a directory, not executable.
func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return hint.Errorf("check the path, or install the server", "does not exist: %w", exec.ErrNotFound)
	case err != nil:
		return fmt.Errorf("cannot be examined: %w", err)
	case fi.IsDir():
		return errors.New("is a directory, not an executable")
	case fi.Mode()&0o111 == 0:
		return hint.Errorf("make it executable: chmod +x "+termtext.ShellArg(p), "is not executable: %w", os.ErrPermission)
	}
	return nil
}
