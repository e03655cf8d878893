package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Installing is not starting. A locked `npx -y PKG@VER` on a machine whose
// npm cache does not hold PKG downloads and installs it first: seconds to
// minutes, far past a start allowance, and 36 such installs at once on 2
// cores make each slower still. So before such a server starts, mcpsum
// installs its package by npx itself (`npx --yes --package=PKG -- true`:
// the same folder of npx's cache, the same npm), and only then starts the
// server and counts its start allowance:
//
//   - at most InstallSlots installs run at once on this machine (a file
//     lock per slot in the state folder, so every mcpsum process, each
//     proxy of a client that starts 36 of them, shares them);
//   - an install has its own allowance (Options.InstallTimeout, default
//     DefaultInstallTimeout), not the start allowance;
//   - an installer is never stopped mid-write: it runs in a process group
//     of its own, its output goes to a file, not a pipe, and when mcpsum
//     stops waiting (the allowance, Ctrl-C) it is left to finish;
//   - what an install cut short left (npx's folder with node_modules but
//     without the package.json npm writes last) is removed before the
//     next install, unless npm's own lock says an install runs there now.
//
// The install sees the server's environment plus the install-time
// variables of the caller's (InstallEnv): npm's configuration, proxies and
// certificates, as a plain npx from the user's shell does.

// DefaultInstallTimeout is how long a package install may take.
const DefaultInstallTimeout = 10 * time.Minute

// InstallSlots is how many package installs run at once on this machine.
func InstallSlots() int { return max(1, min(4, runtime.NumCPU()/2)) }

// installVars are the variables of the caller's environment an install
// sees (beyond the server's own): npm's configuration (npm_config_* and
// NPM_CONFIG_*, by prefix), and how this machine reaches the registry.
var installVars = []string{
	"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
}

// InstallEnv is the environment of the install of a server with
// envPassthrough env: the server's, plus the install-time variables set in
// mcpsum's environment (names in installVars, and npm_config_*).
func InstallEnv(env []string) []string {
	out := process.Environ(env)
	have := func(n string) bool {
		return slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, n+"=") })
	}
	for _, kv := range os.Environ() {
		n, _, _ := strings.Cut(kv, "=")
		if installVar(n) && !have(n) {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// installVar: a variable of the caller's an install sees. npm's cache
// folder is not one: the server's npx must find the package where it was
// installed (its own HOME, or npm_config_cache when locked with --env).
func installVar(n string) bool {
	low := strings.ToLower(n)
	return (slices.Contains(installVars, n) || strings.HasPrefix(low, "npm_config_")) && low != "npm_config_cache" && lockfile.ValidEnvName(n)
}

// InstallSees is lock's one line about an entry whose package mcpsum
// installs by npx before its first start on a machine (see above), or ""
// for any other entry (not npx, a form parseNpx does not know, sandboxed,
// remote): which environment that install sees, the rule and the names it
// gives here (never values), and how to pass it another. Escaped.
func InstallSees(entry *lockfile.Server) string {
	if entry.Remote() || (entry.Policy != nil && entry.Policy.Sandbox != nil) {
		return ""
	}
	run := parseNpx(entry.Command)
	if run == nil {
		return ""
	}
	var names []string
	for _, kv := range InstallEnv(entry.EnvPassthrough) {
		n, _, _ := strings.Cut(kv, "=")
		names = append(names, termtext.ShellArg(n))
	}
	pkgs := make([]string, len(run.packages))
	for i, p := range run.packages {
		pkgs[i] = termtext.ShellArg(p)
	}
	return fmt.Sprintf("npx installs %s before its first start on a machine; the install sees the server's variables (PATH, HOME, TMPDIR, envPassthrough) and your npm_config_*, proxy and CA variables (here: %s), no others: lock with --env one it needs (PUPPETEER_SKIP_DOWNLOAD, ...)",
		strings.Join(pkgs, " "), strings.Join(names, ", "))
}

// installish are name patterns of variables package install scripts read
// (browser and binary downloads, mirrors): when an install fails, those
// set in the caller's environment are named with the --env that passes them.
var installish = []string{"PUPPETEER_", "PLAYWRIGHT_", "ELECTRON_", "CYPRESS_", "SHARP_", "_SKIP_DOWNLOAD", "_DOWNLOAD_", "_MIRROR", "_BINARY_"}

// InstallWithheld names the variables set in mcpsum's environment that an
// install of a server with envPassthrough env did not see and that it may
// need: names of the install-script kind (installish), and any that the
// install's output mentions. Names only, sorted.
func InstallWithheld(env []string, output string) []string {
	seen := InstallEnv(env)
	var out []string
	for _, kv := range os.Environ() {
		n, _, _ := strings.Cut(kv, "=")
		if !lockfile.ValidEnvName(n) || slices.ContainsFunc(seen, func(s string) bool { return strings.HasPrefix(s, n+"=") }) {
			continue
		}
		up := strings.ToUpper(n)
		if slices.ContainsFunc(installish, func(p string) bool { return strings.Contains(up, p) }) || (len(n) > 3 && strings.Contains(output, n)) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// installNpx installs the package of a locked npx command when npx's cache
// does not hold it (see above); nil when there was nothing to do or it was
// installed.
func installNpx(name string, entry *lockfile.Server, dir string, opts Options) error {
	run := parseNpx(entry.Command)
	if run == nil || run.local(dir) { // npx runs the project's copy: nothing to install (npxlocal.go)
		return nil
	}
	env := InstallEnv(entry.EnvPassthrough)
	cache := npmCache(process.Environ(entry.EnvPassthrough))
	if cache == "" {
		return nil
	}
	folder := run.folder(cache)
	switch run.state(folder) {
	case npxInstalled:
		return nil
	case npxHalf:
		if err := removeHalf(folder); err != nil {
			return fmt.Errorf("npx's folder %s was left half-installed (node_modules without its package.json) and cannot be removed: %w; remove it: rm -rf %s", termtext.ShellArg(folder), err, termtext.ShellArg(folder))
		}
		note(opts, name, fmt.Sprintf("removed npx's half-installed folder %s (an install cut short left node_modules without its package.json); installing again", folder))
	}
	allowance := opts.InstallTimeout
	if allowance <= 0 {
		allowance = DefaultInstallTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), allowance)
	defer cancel()
	slot, err := installSlot(ctx)
	if err != nil {
		return fmt.Errorf("waiting %s for one of the %d install slots: %w", allowance, InstallSlots(), err)
	}
	defer slot.Unlock()
	if run.state(folder) == npxInstalled { // another process installed it meanwhile
		return nil
	}
	note(opts, name, fmt.Sprintf("installing %s with npx (first start on this machine; up to %s, not counted in the start allowance)", strings.Join(run.packages, " "), allowance))
	return runInstall(ctx, name, entry, run, env, dir, allowance)
}

func note(opts Options, name, msg string) {
	if opts.Note != nil {
		opts.Note(name, msg)
	}
}

// removeHalf moves a half-installed npx folder aside (at once, so npx never
// sees half of it gone) and removes it.
func removeHalf(folder string) error {
	aside := fmt.Sprintf("%s.mcpsum-removed-%d", folder, os.Getpid())
	if err := os.Rename(folder, aside); err != nil {
		return err
	}
	return os.RemoveAll(aside)
}

// installSlot takes one of the machine's install slots, waiting until one
// is free or ctx ends.
func installSlot(ctx context.Context) (*statefile.Lock, error) {
	state, err := statefile.Dir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(state, "install")
	if err := statefile.MkdirPrivate(dir); err != nil {
		return nil, err
	}
	n := InstallSlots()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("slot-%d", i))
		f, err := os.OpenFile(p, os.O_CREATE|os.O_RDONLY, 0o600)
		if err != nil {
			return nil, err
		}
		f.Close()
		paths = append(paths, p)
	}
	for {
		for _, p := range paths {
			l, err := statefile.LockTimeout(p, 0)
			if err == nil {
				return l, nil
			}
			if !errors.Is(err, statefile.ErrLockTimeout) {
				return nil, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// InstallError is a package install that failed or did not finish in its
// allowance.
type InstallError struct {
	Server   string
	Packages []string
	Log      string   // the install's output, kept in the state folder
	Tail     []string // its last lines
	Output   string   // all of it (untrusted: only searched, never printed)
	Err      error
	Running  bool // still running: left to finish
}

func (e *InstallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "installing %s with npx ", strings.Join(e.Packages, " "))
	if e.Running {
		fmt.Fprintf(&b, "did not finish in %v; the installer is left to finish (it is never stopped mid-write): run the command again once it has (its output: %s)", e.Err, e.Log)
		return b.String()
	}
	fmt.Fprintf(&b, "failed (%v); its output: %s", e.Err, e.Log)
	for _, l := range e.Tail {
		b.WriteString("\n  npm: ")
		b.WriteString(termtext.TruncateQuote(l, 300))
	}
	return b.String()
}

// runInstall runs `npx --yes --package=PKG... -- true` in dir with env, in a
// process group of its own with its output in a file, and waits for it at
// most allowance (ctx).
func runInstall(ctx context.Context, name string, entry *lockfile.Server, run *npxRun, env []string, dir string, allowance time.Duration) error {
	state, err := statefile.Dir()
	if err != nil {
		return err
	}
	logDir := filepath.Join(state, "install")
	logPath := filepath.Join(logDir, filepath.Base(run.folder("/"))+".log")
	logf, err := statefile.OpenTruncate(logPath) // a link planted there is refused, never followed
	if err != nil {
		return fmt.Errorf("server %q: the npx install's log: %w", name, err)
	}
	defer logf.Close()
	prog, err := process.LookPath(entry.Command[0], env, dir)
	if err != nil {
		return err
	}
	args := []string{"--yes"}
	for _, p := range run.packages {
		args = append(args, "--package="+p)
	}
	cmd := exec.Command(prog, append(args, "--", "true")...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, logf, logf
	detach(cmd)
	wait, err := process.StartKept(cmd) // not a server: no sweep of servers' orphans ends it
	if err != nil {
		return fmt.Errorf("server %q: starting npx to install %s: %w", name, strings.Join(run.packages, " "), err)
	}
	done := make(chan error, 1)
	go func() { done <- wait() }()
	ie := &InstallError{Server: name, Packages: run.packages, Log: logPath}
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
		ie.Err = err
		out, _ := os.ReadFile(logPath)
		ie.Tail, ie.Output = lastLines(string(out), 8), string(out)
		return ie
	case <-ctx.Done():
		ie.Err, ie.Running = fmt.Errorf("%v", allowance), true
		go func() { <-done }() // reaped if mcpsum lives on; never killed
		return ie
	}
}

func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
