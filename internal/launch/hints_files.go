package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Node's ways of saying a module is missing: CommonJS names the module and
// then its "Require stack", ES modules the module or package and the file
// that imported it.
var (
	nodeMissing  = &lazyRegexp{expr: `Cannot find (?:module|package) '([^']+)'(?: imported from (\S+))?`}
	requireStack = &lazyRegexp{expr: `(?m)^- (/\S+)$`}
)

// nodeModulesHint: the server failed because the Node packages of a
// project are not installed (node_modules is never committed, so a fresh
// clone or a CI job has none until it installs them). It names the project
// folder and its install command.
func nodeModulesHint(text, dir string) string {
	m := nodeMissing.get().FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	missing, from := m[1], m[2]
	if from == "" {
		if s := requireStack.get().FindStringSubmatch(text); s != nil {
			from = s[1]
		}
	}
	from = strings.TrimPrefix(from, "file://")
	var where string
	switch {
	case strings.Contains(missing, "/node_modules/"):
		where = missing // the package's own file is not there
	case !strings.HasPrefix(missing, "/") && !strings.HasPrefix(missing, ".") && filepath.IsAbs(from):
		where = from // a bare package, imported from a file of the project
	default:
		return "" // a file of the server itself: missingFileHint names it
	}
	return installHint(projectOf(where))
}

// missingProgramHint is for a locked program under a project's
// node_modules (node_modules/.bin/server) that is not there: the project's
// install command (process.LookPath's own hint names the path).
func missingProgramHint(argv0, dir string) string {
	p := argv0
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if !strings.Contains(p, "/node_modules/") {
		return ""
	}
	return installHint(projectOf(p))
}

// projectOf is the Node project a path belongs to: the folder above its
// first node_modules, else the nearest folder with a package.json.
func projectOf(p string) string {
	if before, _, ok := strings.Cut(p, "/node_modules/"); ok {
		return before
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// installers: the lockfile a project's package manager keeps, and the
// command that installs exactly what it names.
var installers = []struct{ file, command string }{
	{"package-lock.json", "npm ci"},
	{"npm-shrinkwrap.json", "npm ci"},
	{"pnpm-lock.yaml", "pnpm install --frozen-lockfile"},
	{"yarn.lock", "yarn install --frozen-lockfile"},
	{"package.json", "npm install"},
}

// installHint names project's install command, or "" when project is no
// Node project here.
func installHint(project string) string {
	if project == "" || !filepath.IsAbs(project) {
		return ""
	}
	for _, in := range installers {
		if _, err := os.Stat(filepath.Join(project, in.file)); err == nil {
			return fmt.Sprintf("the server's Node packages are not installed in %s (node_modules is not committed: a fresh clone or a CI job installs them); install them, then run mcpsum again: cd %s && %s",
				termtext.ShellArg(project), termtext.ShellArg(project), in.command)
		}
	}
	return ""
}

// missingFile finds a path a server reports missing: Node's ENOENT,
// Python's FileNotFoundError and "can't open file", Go's and C's "PATH: no
// such file or directory", "cannot access PATH" (server-filesystem, ls).
func missingFile() []*regexp.Regexp {
	missingFileOnce.Do(func() { missingFileRes = compileMissingFile() })
	return missingFileRes
}

// missingFileOnce and missingFileRes are zero values, data without an
// initialiser (a sync.OnceValue here would run code before main).
var (
	missingFileOnce sync.Once
	missingFileRes  []*regexp.Regexp
)

func compileMissingFile() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`ENOENT: no such file or directory, \w+ '([^']+)'`),
		regexp.MustCompile(`No such file or directory: '([^']+)'`),
		regexp.MustCompile(`can't open file '([^']+)'`),
		regexp.MustCompile(`Cannot find module '(/[^']+)'`),
		regexp.MustCompile(`(?:open|stat|lstat|chdir) (\S+): no such file or directory`),
		regexp.MustCompile(`[Cc]annot access (?:directory |file )?'?(/[^\s',:]+)`),
		regexp.MustCompile(`cannot open ([^\s:]+): No such file`),          // dash: sh srv.sh
		regexp.MustCompile(`(?:^|\s)([^\s:]+): No such file or directory`), // bash, C programs
	}
}

// missingFileHint names the file or folder the server looked for, when it
// indeed does not exist here (relative paths are the server's: against the
// lockfile's folder).
func missingFileHint(text, dir string) string {
	for _, re := range missingFile() {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			p := m[1]
			if !filepath.IsAbs(p) {
				if dir == "" {
					continue
				}
				p = filepath.Join(dir, p)
			}
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				continue
			}
			return fmt.Sprintf("the server looked for %s, which does not exist here: create it (or check it out), or lock the server with a path this machine has",
				termtext.ShellArg(filepath.Clean(p)))
		}
	}
	return ""
}
