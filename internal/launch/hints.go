package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Explain adds to err the hint that fixes what the server failed on (a
// hint.Error; lock, verify and the proxy print the same), when mcpsum
// recognises it in the failure or the server's stderr:
//
//   - a half-installed npx cache folder: its removal;
//   - Node packages not installed (MODULE_NOT_FOUND in a project's
//     node_modules, or a locked program under node_modules that is not
//     there): the project's install command (npm ci);
//   - a file or folder the server looked for that does not exist here: its path;
//   - a variable set for mcpsum but withheld from the server, named in its
//     stderr (or, when nothing else explains the failure, the common ones):
//     the lock command with --env (names only, never values);
//   - a silent first start: the flag that gives it more time.
//
// A failure with a recognised cause gets no --env advice: re-locking with
// variables changes the committed lock and fixes nothing. Errors that are
// none of these are returned as they are.
func Explain(name string, entry *lockfile.Server, opts Options, err error) error {
	var exit *process.ExitError
	var to *mcpwire.TimeoutError
	var ie *InstallError
	var stderr []string
	dir, _ := WorkDir(opts.Lockfile)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie):
		return explainInstall(name, entry, opts, ie)
	case errors.As(err, &exit):
		stderr = exit.Stderr
	case errors.As(err, &to):
		stderr = to.Stderr
	case errors.Is(err, exec.ErrNotFound) && len(entry.Command) > 0:
		return hint.Wrap(err, missingProgramHint(entry.Command[0], dir))
	default:
		return err
	}
	text := strings.Join(stderr, "\n")
	cause := npxCacheHint(entry, text)
	if cause == "" {
		cause = nodeModulesHint(text, dir)
	}
	if cause == "" {
		cause = missingFileHint(text, dir)
	}
	hints := []string{cause}
	if to != nil && to.Silent {
		allowance := opts.StartTimeout
		if allowance <= 0 {
			allowance = to.After
		}
		hints = append(hints, fmt.Sprintf("a first start may download the package (npx, uvx) for longer than %s; give it more time: --start-timeout-secs %d",
			allowance, max(int(allowance/time.Second)*5, 300)))
	}
	if cause == "" {
		hints = append(hints, envHint(name, entry, opts, text))
	}
	return hint.Wrap(err, hints...)
}

// envHint names the variables set for mcpsum but withheld from the server
// that its stderr names, else (nothing else explained the failure) the
// common ones, with the lock command that passes them. Names only.
func envHint(name string, entry *lockfile.Server, opts Options, stderr string) string {
	w := namedIn(stderr, entry.EnvPassthrough)
	lead := "the server names a variable set for mcpsum but withheld from it"
	if len(w) == 0 {
		w = Withheld(entry.EnvPassthrough)
		lead = "set for mcpsum but withheld from the server"
	}
	if len(w) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (it gets only PATH, HOME, TMPDIR and envPassthrough): %s; if it needs one, lock it with the ones it needs: %s",
		lead, strings.Join(w, ", "), lockWithEnv(name, entry, opts, w))
}

// envWord is a word of a server's stderr that could name a variable.
var envWord = &lazyRegexp{expr: `\b[A-Za-z_][A-Za-z0-9_]{2,}\b`}

// namedIn lists the variables set in mcpsum's environment, withheld from a
// server passed env, whose names stderr holds, sorted.
func namedIn(stderr string, env []string) []string {
	passed := slices.Concat(env, process.BaseEnv())
	var out []string
	for _, w := range envWord.get().FindAllString(stderr, -1) {
		if _, set := os.LookupEnv(w); set && !slices.Contains(passed, w) && lockfile.ValidEnvName(w) && w == strings.ToUpper(w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lockWithEnv is the lock command that passes the entry's variables and w.
func lockWithEnv(name string, entry *lockfile.Server, opts Options, w []string) string {
	lp := opts.Lockfile
	if lp == "" {
		lp = "mcp.lock"
	}
	args := []string{"mcpsum", "lock", "--lockfile", lp, "--name", name}
	for _, n := range slices.Concat(entry.EnvPassthrough, w) {
		args = append(args, "--env", n)
	}
	args = append(append(args, "--"), entry.Command...)
	return termtext.ShellArgs(args)
}

// explainInstall adds to a failed package install the variables of the
// caller's environment it did not see and may need (a plain npx from the
// user's shell sees them all), with the lock command that passes them.
func explainInstall(name string, entry *lockfile.Server, opts Options, ie *InstallError) error {
	if ie.Running {
		return ie
	}
	w := InstallWithheld(entry.EnvPassthrough, ie.Output)
	if len(w) == 0 {
		return hint.Wrap(ie, "the install saw the server's variables (envPassthrough, PATH, HOME, TMPDIR) and npm's configuration, proxies and certificates (npm_config_*, HTTPS_PROXY, NODE_EXTRA_CA_CERTS, …); its full output is in "+ie.Log)
	}
	return hint.Wrap(ie, fmt.Sprintf("set in your environment but not seen by the install (it sees the server's variables and npm's configuration, proxies and certificates): %s; if the install needs one, lock it with it: %s",
		strings.Join(w, ", "), lockWithEnv(name, entry, opts, w)))
}

// commonEnv are variables servers often fail without, directly inherited
// but withheld by mcpsum unless named: who the user is, the locale, proxies
// and the certificates a company network needs.
var commonEnv = []string{
	"USER", "LOGNAME", "LANG", "LC_ALL", "TZ",
	"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
}

// Withheld names the common variables (and every npm_config_* one) set in
// mcpsum's environment that a server with envPassthrough env does not get,
// sorted. Only names: values never leave mcpsum.
func Withheld(env []string) []string {
	passed := slices.Concat(env, process.BaseEnv())
	var out []string
	for _, kv := range os.Environ() {
		n, _, _ := strings.Cut(kv, "=")
		if (slices.Contains(commonEnv, n) || strings.HasPrefix(n, "npm_config_")) && !slices.Contains(passed, n) && lockfile.ValidEnvName(n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// npxFolder finds a folder of npm's npx cache (…/_npx/<16 hex>) in a stderr
// line; the character set keeps anything a shell would read specially out.
var npxFolder = &lazyRegexp{expr: `(/[A-Za-z0-9._@+~/-]*/_npx/[0-9a-f]{16})\b`}

// missingModule is what node says it could not find.
var missingModule = &lazyRegexp{expr: `Cannot find (?:module|package) '([^']{1,300})'`}

// npxCacheHint names a half-installed npx cache folder when the server
// failed on a missing file in it, and the command that removes it (npx
// installs it afresh on the next start); an install that finished (the
// folder's package.json is there) but lacks a file is the package's own
// fault (broken upstream), and removing it changes nothing: it says so.
func npxCacheHint(entry *lockfile.Server, text string) string {
	if !strings.Contains(text, "ENOENT") && !strings.Contains(text, "Cannot find") && !strings.Contains(text, "MODULE_NOT_FOUND") {
		return ""
	}
	dir := ""
	if m := npxFolder.get().FindStringSubmatch(text); m != nil {
		dir = filepath.Clean(m[1])
	} else if len(entry.Command) > 0 && filepath.Base(entry.Command[0]) == "npx" {
		// npx's own error names no folder: its whole cache of npx installs
		// (where the server's npm looks: npm_config_cache when passed, else
		// ~/.npm).
		cache := filepath.Join(os.Getenv("HOME"), ".npm")
		if slices.Contains(entry.EnvPassthrough, "npm_config_cache") && os.Getenv("npm_config_cache") != "" {
			cache = os.Getenv("npm_config_cache")
		}
		if filepath.IsAbs(cache) {
			dir = filepath.Join(cache, "_npx")
		}
	}
	if fi, err := os.Stat(dir); dir == "" || err != nil || !fi.IsDir() {
		return ""
	}
	if filepath.Base(dir) != "_npx" {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			// npm writes the folder's package.json last: this install
			// finished, and what is missing was never in it.
			missing := ""
			if m := missingModule.get().FindStringSubmatch(text); m != nil {
				missing = " (" + termtext.TruncateQuote(m[1], 200) + ")"
			}
			return fmt.Sprintf("npx's install in %s is complete (its package.json is there), yet a file it needs is missing%s: the package as published, or a dependency version its ranges let in, lacks it; installing again gives the same, so removing the folder does not help: lock a version that works (another PKG@VERSION in the command) or report it to the package's authors",
				termtext.ShellArg(dir), missing)
		}
	}
	return fmt.Sprintf("npx's cache folder %s looks half-installed (an interrupted download leaves it so); remove it and start again: rm -rf %s",
		termtext.ShellArg(dir), termtext.ShellArg(dir))
}
