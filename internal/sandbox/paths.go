package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/policysyntax"
)

// policyPath is one validated filesystem.read or filesystem.write entry.
type policyPath struct {
	Raw     string // as written in the policy
	Literal string // expanded and cleaned
	Real    string // with every symlink resolved
	Write   bool
	IsDir   bool
}

// pathEnv is what "~/" and "${TMP}/" expand to, and where the sandbox keeps
// its own files.
type pathEnv struct {
	Home   string // the user's home directory (as in $HOME)
	Tmp    string // the server's private ${TMP} (host path)
	RunDir string // the sandbox runtime directory: no write path may be in it, except in Tmp
}

const tmpPrefix = policysyntax.TmpPrefix

// expandPolicyPath checks the syntax of a policy path (absolute, "~/..." or
// "${TMP}/...", no ".." component) and expands it. It does not touch the disk.
func expandPolicyPath(raw string, env pathEnv) (string, error) {
	if err := policysyntax.Path(raw); err != nil {
		return "", err
	}
	var base, rest string
	switch {
	case strings.HasPrefix(raw, "/"):
		return filepath.Clean(raw), nil
	case strings.HasPrefix(raw, policysyntax.HomePrefix):
		base, rest = env.Home, raw[len(policysyntax.HomePrefix):]
		if !filepath.IsAbs(base) {
			return "", errors.New("cannot expand ~/: $HOME is not set to an absolute path")
		}
	default: // policysyntax.TmpPrefix
		base, rest = env.Tmp, raw[len(policysyntax.TmpPrefix):]
		if !filepath.IsAbs(base) {
			return "", errors.New("cannot expand ${TMP}/: no private temporary directory")
		}
	}
	return filepath.Join(base, rest), nil
}

// forbiddenRoots may not be policy paths: the sandbox mounts its own /proc and
// device nodes, and the host's would undo the confinement.
var forbiddenRoots = []string{"/proc", "/sys", "/dev"}

// validatePaths expands, checks and resolves the policy paths. Write paths equal
// to or covering a protected path (also through symlinks) are refused.
// "${TMP}/..." paths are created (as folders) inside env.Tmp.
func validatePaths(cfg Config, env pathEnv, prot []protectedPath) ([]policyPath, []string, error) {
	var out []policyPath
	var warnings []string
	for _, group := range []struct {
		field string
		paths []string
		write bool
	}{{"filesystem.read", cfg.Read, false}, {"filesystem.write", cfg.Write, true}} {
		for _, raw := range group.paths {
			perr := func(format string, a ...any) error {
				return &PolicyError{Field: group.field, Value: raw, Reason: fmt.Sprintf(format, a...)}
			}
			lit, err := expandPolicyPath(raw, env)
			if err != nil {
				return nil, nil, perr("%v", err)
			}
			if strings.HasPrefix(raw, tmpPrefix) {
				if err := os.MkdirAll(lit, 0o700); err != nil {
					return nil, nil, perr("cannot create it in ${TMP}: %v", err)
				}
			}
			fi, err := os.Stat(lit)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					return nil, nil, perr("%s does not exist (sandbox paths must exist; create it first)", lit)
				}
				return nil, nil, perr("%v", err)
			}
			real, err := filepath.EvalSymlinks(lit)
			if err != nil {
				return nil, nil, perr("cannot resolve symlinks: %v", err)
			}
			for _, f := range forbiddenRoots {
				if within(real, f) {
					return nil, nil, perr("%s is under %s, which the sandbox provides itself", real, f)
				}
			}
			if real == "/" {
				return nil, nil, perr("the whole filesystem cannot be a sandbox path; list the folders the server needs")
			}
			if !group.write && env.RunDir != "" && within(env.RunDir, real) {
				return nil, nil, perr("it would show the sandbox runtime directory %s (other servers' private folders); list narrower folders", env.RunDir)
			}
			p := policyPath{Raw: raw, Literal: lit, Real: real, Write: group.write, IsDir: fi.IsDir()}
			if group.write {
				for _, q := range prot {
					via := ""
					if real != lit {
						via = fmt.Sprintf(" (it resolves to %s)", real)
					}
					if within(q.path, real) {
						return nil, nil, perr("a write path may not cover %s %s%s", q.what, q.path, via)
					}
					if q.sealed && within(real, q.path) {
						return nil, nil, perr("a write path may not lie inside %s %s%s: the server could clear its client's taint or rewrite the audit logs", q.what, q.path, via)
					}
				}
				if env.RunDir != "" && within(real, env.RunDir) && !within(real, env.Tmp) {
					return nil, nil, perr("%s is inside the sandbox runtime directory %s", real, env.RunDir)
				}
				warnings = append(warnings, writeWarnings(p, env.Home)...)
			}
			out = append(out, p)
		}
	}
	if err := checkPlanted(out); err != nil {
		return nil, nil, err
	}
	return out, warnings, nil
}

// checkPlanted refuses a policy path that resolves through a symlink lying
// inside a write path (issue 12.2): a server may write there, so it may have
// planted the link on an earlier run (rename a folder of a nested policy path
// away, leave a symlink to a secret or outside folder in its place) to change
// what its next sandbox shows and lets it write. The lock author's path meant
// the folder that was there, not whatever the server linked in.
func checkPlanted(paths []policyPath) error {
	var writes []policyPath
	for _, p := range paths {
		if p.Write {
			writes = append(writes, p)
		}
	}
	for _, p := range paths {
		parts := strings.Split(strings.TrimPrefix(p.Literal, "/"), "/")
		cur := "/"
		for _, part := range parts {
			cur = filepath.Join(cur, part)
			fi, err := os.Lstat(cur)
			if err != nil || fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			at := filepath.Join(resolveBest(filepath.Dir(cur)), filepath.Base(cur)) // where the link itself lies
			for _, w := range writes {
				if within(at, w.Real) {
					field := "filesystem.read"
					if p.Write {
						field = "filesystem.write"
					}
					return &PolicyError{Field: field, Value: p.Raw, Reason: fmt.Sprintf(
						"it resolves through the symlink %s, inside the write path %q, where the server could have planted it "+
							"(it would now show %s); remove the link and restore the folder, or list the real path if you made the link yourself",
						cur, w.Raw, p.Real)}
				}
			}
		}
	}
	return nil
}

// protectedPath is a path no write path may cover; a sealed one (mcpsum's
// state directory) no write path may lie inside either.
type protectedPath struct {
	path, what string
	sealed     bool
}

// protectList resolves each protected path both as written (cleaned) and
// through its symlinks; paths that do not exist yet resolve their nearest
// existing ancestor. home, exe and runDir are added with their own labels.
func protectList(protected []string, home, exe, runDir string) []protectedPath {
	var out []protectedPath
	add := func(p, what string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		c := filepath.Clean(p)
		out = append(out, protectedPath{path: c, what: what})
		if r := resolveBest(c); r != c {
			out = append(out, protectedPath{path: r, what: what})
		}
	}
	add(home, "your home directory")
	add(exe, "the mcpsum binary")
	add(runDir, "the sandbox runtime directory")
	for _, p := range protected {
		add(p, "the protected path")
	}
	return out
}

// sealList is protectList for sealed paths (Config.Sealed).
func sealList(sealed []string) []protectedPath {
	out := protectList(sealed, "", "", "")
	for i := range out {
		out[i].what, out[i].sealed = "mcpsum's state directory", true
	}
	return out
}

// resolveBest resolves the symlinks of p's longest existing prefix.
func resolveBest(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolveBest(parent), filepath.Base(p))
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// writeWarnings flags write paths holding files that run outside the sandbox
// later (notes/sandbox.md pitfall 9).
func writeWarnings(p policyPath, home string) []string {
	var w []string
	if _, err := os.Stat(filepath.Join(p.Real, ".git")); err == nil || strings.Contains(p.Real+"/", "/.git/") {
		w = append(w, fmt.Sprintf("write path %q holds a git repository: the server can change its hooks (.git/hooks), which git runs outside the sandbox", p.Raw))
	}
	if home != "" {
		for _, rel := range []string{".local/bin", ".config", ".npm", ".cache", ".ssh", ".gnupg"} {
			risky := filepath.Join(home, rel)
			if within(risky, p.Real) || within(p.Real, risky) {
				w = append(w, fmt.Sprintf("write path %q covers %s, whose files run or are trusted outside the sandbox", p.Raw, risky))
			}
		}
	}
	return w
}

// removeAll removes a tree even where the server left folders without write
// permission.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("sandbox: remove %s: %w", dir, err)
	}
	return nil
}

// WriteWarnings reviews a policy's write paths without starting anything: for
// each one that exists here, the warnings Prepare gives at start (a git
// repository whose hooks run outside the sandbox, ~/.ssh, ~/.local/bin, ...).
// "${TMP}/..." paths are fresh at every start and never warned about; paths
// that cannot be expanded or do not exist are left to Prepare's errors.
func WriteWarnings(write []string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, raw := range write {
		if strings.HasPrefix(raw, tmpPrefix) {
			continue
		}
		lit, err := expandPolicyPath(raw, pathEnv{Home: home})
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(lit)
		if err != nil {
			continue
		}
		out = append(out, writeWarnings(policyPath{Raw: raw, Literal: lit, Real: real, Write: true}, home)...)
	}
	return out
}
