package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/sandbox"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// codeLoadingEnv are environment variables that make an interpreter or the
// dynamic linker load code named by their value: passing one through lets
// whoever controls the client's environment choose the server's code.
var codeLoadingEnv = []string{
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
	"NODE_OPTIONS", "NODE_PATH", "NODE_REPL_EXTERNAL_MODULE",
	"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
	"RUBYOPT", "RUBYLIB", "PERL5OPT", "PERL5LIB", "PERLLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"BASH_ENV", "ENV", "GCONV_PATH", "DENO_DIR", "BUN_OPTIONS",
}

// CodeLoadingEnv reports whether the variable name makes a runtime load code
// (LD_PRELOAD, NODE_OPTIONS, PYTHONPATH, ...).
func CodeLoadingEnv(name string) bool { return slices.Contains(codeLoadingEnv, name) }

// Warnings reviews a locked entry without starting it: what lock and show
// print so the reviewer sees it. Nothing here stops a server.
//   - envPassthrough names a code-loading variable;
//   - the command holds an absolute path a teammate will not have (under a
//     home folder, the temporary folder, or the lockfile's own folder, which
//     should be written relative to it: it is the server's working directory);
//   - a sandbox write path holds files that run outside the sandbox later.
func Warnings(entry *lockfile.Server, lockPath string) []string {
	if entry.Remote() {
		return nil // no command, no environment, no sandbox
	}
	var out []string
	for _, n := range entry.EnvPassthrough {
		if CodeLoadingEnv(n) {
			out = append(out, fmt.Sprintf("envPassthrough %s makes the server load code named by the client's environment: whoever sets it there controls the server's code", n))
		}
	}
	out = append(out, argvWarnings(entry.Command, lockPath)...)
	if entry.Policy != nil && entry.Policy.Sandbox != nil {
		out = append(out, sandbox.WriteWarnings(entry.Policy.Sandbox.Filesystem.Write)...)
		if dir, _ := WorkDir(lockPath); dir != "" && !SandboxSeesWorkDir(entry, lockPath) {
			var rel []string
			for _, a := range entry.Command[1:] {
				if relativePath(a) {
					rel = append(rel, termtext.Quoted(a, -1))
				}
			}
			if len(rel) > 0 {
				out = append(out, fmt.Sprintf("sandboxed, the server runs in its private ${TMP}, not in the lockfile's folder %s, which its policy does not make visible: the relative paths %s in its command do not resolve there; add the folder (or what it needs of it) to filesystem.read, or write the paths absolute", dir, strings.Join(rel, ", ")))
			}
		}
	}
	return out
}

// SandboxSeesWorkDir reports whether entry's sandbox policy makes the
// lockfile's folder (every server's working directory) visible. When it
// does not, the sandbox starts the server in its private ${TMP} instead.
// Entries without a sandbox see it.
func SandboxSeesWorkDir(entry *lockfile.Server, lockPath string) bool {
	if entry.Policy == nil || entry.Policy.Sandbox == nil {
		return true
	}
	dir, err := WorkDir(lockPath)
	if err != nil {
		return false
	}
	home, _ := os.UserHomeDir()
	fs := entry.Policy.Sandbox.Filesystem
	for _, p := range append(slices.Clone(fs.Read), fs.Write...) {
		switch {
		case strings.HasPrefix(p, "~/") && home != "":
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			continue // ${TMP}/…: the sandbox's own
		}
		if under(dir, filepath.Clean(p)) {
			return true
		}
	}
	return false
}

// relativePath reports whether a command word looks like a relative file
// path (./x, ../x, dir/x, x.js), which resolves against the working
// directory.
func relativePath(a string) bool {
	if a == "" || strings.HasPrefix(a, "-") || filepath.IsAbs(a) || strings.Contains(a, "://") ||
		strings.HasPrefix(a, "@") || strings.Contains(a, "@") && !strings.Contains(a, "/") { // npm package specs
		return false
	}
	return strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.Contains(a, "/") ||
		slices.Contains([]string{".js", ".mjs", ".cjs", ".py", ".ts", ".rb", ".sh"}, filepath.Ext(a))
}

// argvWarnings flags absolute paths in the command that are specific to this
// machine or this checkout.
func argvWarnings(argv []string, lockPath string) []string {
	dir, _ := WorkDir(lockPath)
	home, _ := os.UserHomeDir()
	tmp := os.TempDir()
	var out []string
	seen := map[string]bool{}
	for _, a := range argv {
		p, flag := a, ""
		if i := strings.Index(a, "=/"); i > 0 && strings.HasPrefix(a, "-") {
			p, flag = a[i+1:], a[:i+1] // --flag=/abs/path
		}
		if !filepath.IsAbs(p) || seen[p] {
			continue
		}
		seen[p] = true
		p = filepath.Clean(p)
		switch {
		case dir != "" && dir != "/" && under(p, dir):
			rel, _ := filepath.Rel(dir, p)
			if rel != "." {
				rel = "./" + rel
			}
			out = append(out, fmt.Sprintf("command holds %s, inside the lockfile's folder: a teammate's checkout is elsewhere; write it as %s (the server runs in the lockfile's folder)", termtext.Quoted(a, -1), termtext.Quoted(flag+rel, -1)))
		case home != "" && home != "/" && under(p, home):
			out = append(out, fmt.Sprintf("command holds %s, under your home folder: a teammate will not have it; put what the server needs where the lock can name it on every machine (e.g. relative to the lockfile's folder)", termtext.Quoted(a, -1)))
		case under(p, "/home") || under(p, "/Users") || under(p, "/root"):
			out = append(out, fmt.Sprintf("command holds %s, under a home folder: a teammate will not have it", termtext.Quoted(a, -1)))
		case tmp != "" && tmp != "/" && under(p, tmp):
			out = append(out, fmt.Sprintf("command holds %s, under the temporary folder %s: it will not exist on another machine (or after a reboot)", termtext.Quoted(a, -1), tmp))
		}
	}
	return out
}

func under(p, dir string) bool {
	dir = filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+"/")
}
