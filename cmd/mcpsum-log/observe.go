package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/pkgspec"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// runObserve: mcpsum-log observe --dir D --list FILE, the observer's batch
// job: each listed package version is locked in the sandbox (network only
// to its registry, a scratch home), its surface added to the log; what the
// log holds is skipped, a failure is reported and the job goes on.
func runObserve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, dir, storage := flags("observe", stderr, true)
	list := fs.String("list", "", "file of package versions, one a line: npm/PACKAGE@VERSION (# comments)")
	timeout := fs.Int("timeout-secs", 30, "per answer of a server")
	startTimeout := fs.Int("start-timeout-secs", 300, "how long a server's first start (its download) may take")
	publish := fs.Int("publish-timeout-secs", 120, "how long to wait for a signed (and cosigned) checkpoint")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the help is printed
	} else if err != nil || *dir == "" || *list == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, "mcpsum-log observe: want --dir D --list FILE\n")
		return 2
	}
	data, err := safeio.ReadRegular(*list, "package list", 1<<20)
	if err != nil {
		fmt.Fprintf(stderr, "mcpsum-log observe: --list: %v\n", err)
		return 2
	}
	var jobs []observeJob
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		j, err := parseObserve(line)
		if err != nil {
			fmt.Fprintf(stderr, "mcpsum-log observe: %s line %d: %v\n", *list, n, err)
			return 2
		}
		jobs = append(jobs, j)
	}
	o := sumlog.Options{Storage: *storage, PublishTimeout: time.Duration(*publish) * time.Second}
	lo := launch.Options{Timeout: time.Duration(*timeout) * time.Second, StartTimeout: time.Duration(*startTimeout) * time.Second}
	names := make([]string, len(jobs))
	for i, j := range jobs {
		names[i] = j.spec
	}
	p := cli.NewProgress(stderr, cli.IsTerminal(stderr), names)
	defer p.Stop()
	var logged, skipped, failed int
	for _, j := range jobs {
		if ctx.Err() != nil {
			p.Done(j.spec, "not run: interrupted")
			failed++
			continue
		}
		res, err := observeOne(ctx, *dir, o, j, lo)
		switch {
		case err != nil:
			failed++
			p.Done(j.spec, "FAILED: "+err.Error())
		case res == "":
			skipped++
			p.Done(j.spec, "skipped: the log holds it")
		default:
			logged++
			p.Done(j.spec, res)
			fmt.Fprintf(stdout, "logged  %s %s\n", j.spec, res)
		}
	}
	fmt.Fprintf(stderr, "observe: %d logged, %d skipped (already logged), %d failed\n", logged, skipped, failed)
	if failed > 0 {
		return 3
	}
	return 0
}

// observeJob is one listed package version: the command everyone runs for
// it and the registry it may reach.
type observeJob struct {
	spec         string
	pkg, version string
	argv         []string // what everyone runs (the key is made of it)
	allow        []string // host:port of its registry
}

// parseObserve reads "npm/PKG@VERSION".
func parseObserve(line string) (observeJob, error) {
	eco, rest, _ := strings.Cut(line, "/")
	at := strings.LastIndexByte(rest, '@')
	if at <= 0 || at == len(rest)-1 || strings.ContainsAny(line, " \t") {
		return observeJob{}, fmt.Errorf("%q: want npm/PACKAGE@VERSION or pypi/PACKAGE@VERSION", line)
	}
	pkg, ver := rest[:at], rest[at+1:]
	j := observeJob{spec: line}
	if eco != "npm" {
		return observeJob{}, fmt.Errorf("%q: observe locks npm packages (a PyPI package, a go module or an OCI image is not observed yet)", line)
	}
	j.pkg, j.version = pkg, ver
	j.argv = []string{"npx", "-y", pkg + "@" + ver}
	j.allow = []string{registryHost(os.Getenv("npm_config_registry"), "registry.npmjs.org:443")}
	pin, ok := pkgspec.FindPinned(j.argv)
	if !ok || pin.Name() != line {
		return observeJob{}, fmt.Errorf("%q: not an exact version of a package (as a log key spells it)", line)
	}
	return j, nil
}

// registryHost is the host:port of a registry URL (def when unset).
func registryHost(raw, def string) string {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" {
		return def
	}
	if u.Port() != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// observeOne locks j in the sandbox and adds its surface; "" means the log
// holds the package version already (under either era's key).
func observeOne(ctx context.Context, dir string, o sumlog.Options, j observeJob, lo launch.Options) (string, error) {
	var keys []string
	for _, era := range []string{mcpspec.EraLegacy, mcpspec.EraModern} {
		if k, ok := sumdb.Key(sumdb.Identity{Argv: j.argv, Era: era, Capabilities: mcpwire.ClientCapabilities(era)}); ok {
			keys = append(keys, k)
		}
	}
	if ok, err := sumlog.Logged(ctx, dir, o, keys); err != nil || ok {
		return "", err
	}
	scratch, err := os.MkdirTemp("", "mcpsum-observe-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	entry, err := install(ctx, scratch, j)
	if err != nil {
		return "", err
	}
	// The server runs sandboxed: it reads its installed package, writes
	// nothing outside its private temporary folder, and reaches only its
	// registry; its home is the scratch folder.
	oldHome, hadHome := os.LookupEnv("HOME")
	os.Setenv("HOME", filepath.Join(scratch, "home"))
	defer func() {
		if hadHome {
			os.Setenv("HOME", oldHome)
		} else {
			os.Unsetenv("HOME")
		}
	}()
	policy := &lockfile.Policy{Sandbox: &lockfile.Sandbox{
		Filesystem: lockfile.Filesystem{Read: []string{filepath.Join(scratch, "work", "node_modules")}, Write: []string{}},
		Network:    lockfile.Network{Allow: j.allow},
	}}
	lo.Lockfile = filepath.Join(scratch, "work", "mcp.lock") // never written: the server's working folder
	e, err := launch.Lock(ctx, j.spec, []string{"node", entry}, nil, "", policy, lo)
	if err != nil {
		return "", err
	}
	// The record is keyed by what everyone runs (npx -y PKG@VERSION): the
	// same package, the same surface.
	key, ok := sumdb.Key(sumdb.Identity{Argv: j.argv, Era: e.Era(), Capabilities: mcpwire.ClientCapabilities(e.Era())})
	if !ok {
		return "", fmt.Errorf("%s has no log key", j.spec)
	}
	added, err := sumlog.Add(ctx, dir, o, []sumlog.Entry{{Key: key, Surface: launch.LogSurface(e)}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (record %d)", key, added[0].Index), nil
}

// install installs j's package into scratch/work with npm (its lifecycle
// scripts off: no package code runs outside the sandbox; npm's cache in
// the scratch home, thrown away) and returns the entry point npx would
// run: the package's one bin, or the bin named as the package.
func install(ctx context.Context, scratch string, j observeJob) (string, error) {
	home, work := filepath.Join(scratch, "home"), filepath.Join(scratch, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", err
		}
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", work, "--ignore-scripts", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", j.pkg+"@"+j.version)
	cmd.Env = append(os.Environ(), "HOME="+home, "npm_config_cache="+filepath.Join(home, ".npm"), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install %s@%s: %v: %s", j.pkg, j.version, err, termtext.TruncateQuote(strings.TrimSpace(string(out)), 400))
	}
	dir := filepath.Join(work, "node_modules", filepath.FromSlash(j.pkg))
	pj, err := safeio.ReadRegular(filepath.Join(dir, "package.json"), "package.json", 1<<20)
	if err != nil {
		return "", err
	}
	f, err := jsonscan.Fields(pj, "bin")
	if err != nil {
		return "", fmt.Errorf("%s: package.json: %v", j.spec, err)
	}
	bin, ok := jsonscan.String(f[0])
	if !ok && len(f[0]) > 0 {
		bins := map[string]string{}
		if _, err := jsonscan.Members(f[0], jsonscan.SkipWS(f[0], 0), func(k string, _, vs, ve int) error {
			if v, ok := jsonscan.String(f[0][vs:ve]); ok {
				bins[k] = v
			}
			return nil
		}); err != nil {
			return "", fmt.Errorf("%s: package.json bin: %v", j.spec, err)
		}
		name := j.pkg[strings.LastIndexByte(j.pkg, '/')+1:]
		for _, v := range bins {
			if len(bins) == 1 {
				bin, ok = v, true
			}
		}
		if b, found := bins[name]; found {
			bin, ok = b, true
		}
	}
	if !ok || bin == "" {
		return "", fmt.Errorf("%s: its package.json names no bin that npx would run", j.spec)
	}
	p := filepath.Join(dir, filepath.FromSlash(bin))
	if rel, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s: its bin %s is outside the package", j.spec, termtext.Quoted(bin, 200))
	}
	return p, nil
}
