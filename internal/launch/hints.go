package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	var stderr []string
	switch {
	case err == nil:
		return nil
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
		lp := opts.Lockfile
		if lp == "" {
			lp = "mcp.lock"
		}
		args := []string{"mcpsum", "lock", "--lockfile", lp, "--name", name}
		for _, n := range slices.Concat(entry.EnvPassthrough, w) {
			args = append(args, "--env", n)
		}
		args = append(append(args, "--"), entry.Command...)
		hints = append(hints, fmt.Sprintf("set for mcpsum but withheld from the server (it gets only PATH, HOME, TMPDIR and the names locked in envPassthrough): %s; if it needs one, lock it with the ones it needs: %s",
			strings.Join(w, ", "), termtext.ShellArgs(args)))
	}
	if len(hints) == 0 {
		return err
	}
	return &StartError{Err: err, Hints: hints}
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
var npxFolder = lazyRegexp(`(/[A-Za-z0-9._@+~/-]*/_npx/[0-9a-f]{16})\b`)

// npxCacheHint names a half-installed npx cache folder when the server
// failed on a missing file in it, and the command that removes it (npx
// installs it afresh on the next start).
func npxCacheHint(entry *lockfile.Server, stderr []string) string {
	text := strings.Join(stderr, "\n")
	if !strings.Contains(text, "ENOENT") && !strings.Contains(text, "Cannot find") && !strings.Contains(text, "MODULE_NOT_FOUND") {
		return ""
	}
	dir := ""
	if m := npxFolder().FindStringSubmatch(text); m != nil {
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
	return fmt.Sprintf("npx's cache folder %s looks half-installed (a download that was interrupted leaves it so, and every later npx start of the package fails until it is removed); remove it and start again: rm -rf %s",
		termtext.ShellArg(dir), termtext.ShellArg(dir))
}
