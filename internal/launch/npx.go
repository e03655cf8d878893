package launch

import (
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What npx does with a locked command, as far as mcpsum needs it to keep
// installing apart from starting (npxinstall.go): which packages it runs
// and the folder of its cache they are installed in.

// npxRun is a locked `npx` command: the package specs it installs, exactly
// as written (npx's cache folder is named after them).
type npxRun struct {
	packages []string
}

// parseNpx reads a locked argv that runs npx: `npx [-y|--yes] PKG [ARG]...`
// or with `-p|--package PKG` (then the command follows). Anything it does
// not know (another flag, -c, a local folder or file) gives nil: the
// command then starts as it always did.
func parseNpx(argv []string) *npxRun {
	if len(argv) < 2 || filepath.Base(argv[0]) != "npx" {
		return nil
	}
	var pkgs []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-y" || a == "--yes":
		case a == "-p" || a == "--package":
			if i+1 >= len(argv) {
				return nil
			}
			i++
			pkgs = append(pkgs, argv[i])
		case strings.HasPrefix(a, "--package="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "--package="))
		case a == "--":
			if len(pkgs) == 0 {
				if i+1 >= len(argv) {
					return nil
				}
				pkgs = append(pkgs, argv[i+1])
			}
			return checkedNpx(pkgs)
		case strings.HasPrefix(a, "-"):
			return nil
		default:
			if len(pkgs) == 0 {
				pkgs = append(pkgs, a)
			}
			return checkedNpx(pkgs)
		}
	}
	return nil
}

func checkedNpx(pkgs []string) *npxRun {
	for _, p := range pkgs {
		if p == "" || strings.ContainsAny(p, `/\:`) && !strings.HasPrefix(p, "@") || strings.HasPrefix(p, ".") || strings.Contains(p, "..") {
			return nil // a folder, a file, a URL, a git spec: npx names those otherwise
		}
		if strings.HasPrefix(p, "@") && strings.Count(p, "/") != 1 {
			return nil
		}
	}
	return &npxRun{packages: pkgs}
}

// folder is npx's cache folder for these packages under cache (npm's cache
// folder): _npx/ and the first 16 hex digits of the SHA-512 of the specs,
// sorted and joined by newlines (libnpmexec's rule).
func (n *npxRun) folder(cache string) string {
	specs := slices.Clone(n.packages)
	slices.Sort(specs)
	sum := sha512.Sum512([]byte(strings.Join(specs, "\n")))
	return filepath.Join(cache, "_npx", hex.EncodeToString(sum[:])[:16])
}

// names are the packages' names without their version ranges.
func (n *npxRun) names() []string {
	var out []string
	for _, p := range n.packages {
		at := strings.LastIndexByte(p, '@')
		if at > 0 {
			p = p[:at]
		}
		out = append(out, p)
	}
	return out
}

// npmCache is npm's cache folder as the server's npx sees it: the passed
// npm_config_cache (in env, the install's environment), else ~/.npm.
func npmCache(env []string) string {
	var home string
	for _, kv := range env {
		n, v, _ := strings.Cut(kv, "=")
		switch strings.ToLower(n) {
		case "npm_config_cache":
			if filepath.IsAbs(v) {
				return v
			}
		case "home":
			if n == "HOME" {
				home = v
			}
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".npm")
}

// npxState is what npx's cache holds of a run.
type npxState int

const (
	npxMissing   npxState = iota // not installed: the first start installs it
	npxInstalled                 // installed: package.json written last, and each package there
	npxHalf                      // node_modules without the folder's package.json: an install cut short
	npxBusy                      // npm's own lock is there: an install runs now
)

// state reads npx's folder dir for run.
func (n *npxRun) state(dir string) npxState {
	if _, err := os.Lstat(filepath.Join(dir, "concurrency.lock")); err == nil {
		return npxBusy
	}
	_, pkgErr := os.Stat(filepath.Join(dir, "package.json"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return npxMissing
	}
	if pkgErr != nil {
		return npxHalf
	}
	for _, name := range n.names() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json")); err != nil {
			return npxMissing // installed for other specs once: npx adds it
		}
	}
	return npxInstalled
}
