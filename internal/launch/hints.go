package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// StartError is a server that failed to start or to answer, with what mcpsum
// can tell the user about why and what to do next (lock, verify and the
// proxy print the same).
type StartError struct {
	Err   error
	Hints []string
}

func (e *StartError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for _, h := range e.Hints {
		b.WriteString("\n  hint: ")
		b.WriteString(h)
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// Explain adds hints to err when the server exited or did not answer in
// time: a half-installed npx cache folder it tripped on, the flag that gives
// a slow first start more time, and the common variables that are set for
// mcpsum but withheld from the server (names only, never values). Other
// errors are returned as they are.
func Explain(name string, entry *lockfile.Server, opts Options, err error) error {
	var exit *process.ExitError
	var to *mcpwire.TimeoutError
	var ie *InstallError
	var stderr []string
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ie):
		return explainInstall(name, entry, opts, ie)
	case errors.As(err, &exit):
		stderr = exit.Stderr
	case errors.As(err, &to):
		stderr = to.Stderr
	default:
		return err
	}
	var hints []string
	if h := npxCacheHint(entry, stderr); h != "" {
		hints = append(hints, h)
	}
	if to != nil && to.Silent {
		allowance := opts.StartTimeout
		if allowance <= 0 {
			allowance = to.After
		}
		hints = append(hints, fmt.Sprintf("a server's first start may download its package (npx, uvx) for longer than %s: give it more time with --start-timeout-secs %d",
			allowance, max(int(allowance/time.Second)*5, 300)))
	}
	if w := Withheld(entry.EnvPassthrough); len(w) > 0 {
		hints = append(hints, fmt.Sprintf("set for mcpsum but withheld from the server (it gets only PATH, HOME, TMPDIR and the names locked in envPassthrough): %s; if it needs one, lock it with the ones it needs: %s",
			strings.Join(w, ", "), lockWithEnv(name, entry, opts, w)))
	}
	if len(hints) == 0 {
		return err
	}
	return &StartError{Err: err, Hints: hints}
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
		return &StartError{Err: ie, Hints: []string{"the install saw the server's variables (envPassthrough, PATH, HOME, TMPDIR) and npm's configuration, proxies and certificates (npm_config_*, HTTPS_PROXY, NODE_EXTRA_CA_CERTS, …); its full output is in " + ie.Log}}
	}
	return &StartError{Err: ie, Hints: []string{fmt.Sprintf("set in your environment but not seen by the install (it sees the server's variables and npm's configuration, proxies and certificates): %s; if the install needs one, lock it with it: %s",
		strings.Join(w, ", "), lockWithEnv(name, entry, opts, w))}}
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
var npxFolder = regexp.MustCompile(`(/[A-Za-z0-9._@+~/-]*/_npx/[0-9a-f]{16})\b`)

// missingModule is what node says it could not find.
var missingModule = regexp.MustCompile(`Cannot find (?:module|package) '([^']{1,300})'`)

// npxCacheHint names a half-installed npx cache folder when the server
// failed on a missing file in it, and the command that removes it (npx
// installs it afresh on the next start); an install that finished (the
// folder's package.json is there) but lacks a file is the package's own
// fault (broken upstream), and removing it changes nothing: it says so.
func npxCacheHint(entry *lockfile.Server, stderr []string) string {
	text := strings.Join(stderr, "\n")
	if !strings.Contains(text, "ENOENT") && !strings.Contains(text, "Cannot find") && !strings.Contains(text, "MODULE_NOT_FOUND") {
		return ""
	}
	dir := ""
	if m := npxFolder.FindStringSubmatch(text); m != nil {
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
			if m := missingModule.FindStringSubmatch(text); m != nil {
				missing = " (" + termtext.TruncateQuote(m[1], 200) + ")"
			}
			return fmt.Sprintf("npx's install in %s is complete (its package.json is there), yet a file it needs is missing%s: the package as published, or a dependency version its ranges let in, lacks it; installing again gives the same, so removing the folder does not help: lock a version that works (another PKG@VERSION in the command) or report it to the package's authors",
				termtext.ShellArg(dir), missing)
		}
	}
	return fmt.Sprintf("npx's cache folder %s looks half-installed (a download that was interrupted leaves it so, and every later npx start of the package fails until it is removed); remove it and start again: rm -rf %s",
		termtext.ShellArg(dir), termtext.ShellArg(dir))
}
