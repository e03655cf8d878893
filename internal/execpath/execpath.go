package execpath

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Find resolves argv0 as the package comment says and returns an absolute
// path (symlinks not resolved). env is the server's environment; dir must be
// absolute when argv0 is a relative path.
func Find(argv0 string, env []string, dir string) (string, error) {
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
			if err := Check(p); err != nil {
				return "", fmt.Errorf("command %q, relative to the server's working directory %s (the lockfile's folder), is %s, which %w", argv0, dir, p, err)
			}
		}
		if err := Check(p); err != nil {
			return "", fmt.Errorf("command %q %w", argv0, err)
		}
		return filepath.Clean(p), nil
	}
	pathEnv := PathOf(env)
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue // "", "." and relative entries would search the working directory
		}
		p := filepath.Join(d, argv0)
		if Check(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("executable %q not found in PATH %q (only absolute PATH entries are searched); install it, or put its path in the command: %w",
		argv0, pathEnv, exec.ErrNotFound)
}

// PathOf is the PATH a server's argv[0] is searched in: the server's own PATH
// when env sets one, else mcpsum's.
func PathOf(env []string) string {
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

// Check reports why p cannot be run: missing, a directory, not executable.
func Check(p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("does not exist; check the path, or install the server: %w", exec.ErrNotFound)
	case err != nil:
		return fmt.Errorf("cannot be examined: %w", err)
	case fi.IsDir():
		return errors.New("is a directory, not an executable")
	case fi.Mode()&0o111 == 0:
		return fmt.Errorf("is not executable; chmod +x it: %w", os.ErrPermission)
	}
	return nil
}
