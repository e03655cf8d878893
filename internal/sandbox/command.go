package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/process"
)

// refuseLauncher refuses package runners that fetch code at start: they contact
// the registry and need a writable cache, and a writable cache is a way out of
// the sandbox (it runs later, unsandboxed).
func refuseLauncher(argv []string) error {
	if len(argv) == 0 {
		return &PolicyError{Field: "command", Reason: "empty command"}
	}
	base := strings.TrimSuffix(filepath.Base(argv[0]), ".cmd")
	sub := ""
	if len(argv) > 1 {
		sub = argv[1]
	}
	runner := ""
	switch {
	case base == "npx" || base == "pnpx" || base == "bunx":
		runner = base
	case base == "npm" && (sub == "exec" || sub == "x"):
		runner = "npm " + sub
	case (base == "pnpm" || base == "yarn") && sub == "dlx":
		runner = base + " dlx"
	case base == "uvx" || (base == "uv" && sub == "tool"):
		runner = base
	}
	if runner == "" {
		return nil
	}
	return &PolicyError{Field: "command", Value: strings.Join(argv, " "), Reason: fmt.Sprintf(
		"%s cannot run inside a sandbox (it contacts the package registry and needs a writable cache); "+
			"install the package outside the sandbox (e.g. npm install --prefix DIR PACKAGE@VERSION) and lock its installed entry point instead, "+
			`as in "command": ["node", "DIR/node_modules/PACKAGE/dist/index.js", ...]`, runner)}
}

// lookPath resolves argv[0] by the rule shared with unsandboxed starts
// (process.LookPath: a relative path against dir, a bare name in the
// absolute PATH entries only). The result has every symlink resolved.
func lookPath(name string, env []string, dir string) (string, error) {
	p, err := process.LookPath(name, env, dir)
	if err != nil {
		return "", &PolicyError{Field: "command", Value: name, Reason: err.Error()}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", &PolicyError{Field: "command", Value: name, Reason: fmt.Sprintf("cannot resolve %s: %v", p, err)}
	}
	return real, nil
}

// interpreters run a script given as their first non-option argument.
var interpreters = []string{"node", "nodejs", "deno", "bun", "python", "python3", "ruby", "perl", "php"}

// scriptRoot returns what a script run by an interpreter needs to read: the
// outermost node_modules above it (packages and their hoisted dependencies),
// else the script's own folder, else (see narrowRoot) only the script. ok is
// false when argv runs no script.
func scriptRoot(argv []string, dir string, avoid []string) (root string, ok bool) {
	if len(argv) < 2 {
		return "", false
	}
	base := filepath.Base(argv[0])
	isInterp := false
	for _, i := range interpreters {
		if base == i || strings.HasPrefix(base, i) && strings.Trim(strings.TrimPrefix(base, i), "0123456789.") == "" {
			isInterp = true
		}
	}
	if !isInterp {
		return "", false
	}
	script := ""
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			script = a
			break
		}
	}
	if script == "" {
		return "", false
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	real, err := filepath.EvalSymlinks(script)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(real); err != nil || fi.IsDir() {
		return "", false
	}
	var cands []string
	parts := strings.Split(real, "/")
	for i, p := range parts {
		if p == "node_modules" && i > 0 {
			cands = append(cands, strings.Join(parts[:i+1], "/"))
			break
		}
	}
	cands = append(cands, filepath.Dir(real))
	return narrowRoot(cands, real, avoid), true
}

// installRoot returns what must be readable for an executable outside the
// system folders: dirname(dirname(exe)) (e.g. ~/.nvm/versions/node/v22), else
// its folder, else (see narrowRoot) only the file.
func installRoot(exe string, avoid []string) string {
	return narrowRoot([]string{filepath.Dir(filepath.Dir(exe)), filepath.Dir(exe)}, exe, avoid)
}

// broadDirs are never added as a whole for the command's own files.
var broadDirs = []string{"/", "/tmp", "/var", "/var/tmp", "/home", "/run", "/opt", "/srv", "/mnt", "/media", "/root", "/usr", "/etc"}

// narrowRoot picks the first candidate folder that is not a shared top-level
// folder and does not hold any of avoid (home, the sandbox runtime folder,
// the temporary folder); otherwise only file.
func narrowRoot(cands []string, file string, avoid []string) string {
next:
	for _, c := range cands {
		for _, b := range broadDirs {
			if c == b {
				continue next
			}
		}
		for _, a := range avoid {
			if a != "" && within(resolveBest(a), c) {
				continue next
			}
		}
		return c
	}
	return file
}

// setEnv returns env without any entry for the given names, then with
// name=value appended for each pair.
func setEnv(env []string, pairs ...string) []string {
	if len(pairs)%2 != 0 {
		panic(errors.New("setEnv: odd pairs"))
	}
	drop := map[string]bool{}
	for i := 0; i < len(pairs); i += 2 {
		drop[pairs[i]] = true
	}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, pairs[i]+"="+pairs[i+1])
	}
	return out
}
