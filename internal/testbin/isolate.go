package testbin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// IsolatedEnv names the variable Isolate sets to its folder. A program a
// test starts inherits it (and the folders below), so a test binary that a
// test re-runs as a helper process does not isolate itself a second time.
const IsolatedEnv = "MCPSUM_TEST_ISOLATED"

// SharedCacheEnv names the variable Isolate sets to the user's real cache
// folder: what tests build once and reuse across runs (the log's test
// peers, internal/sumlog/logtest) stays there, as Go's build cache does.
const SharedCacheEnv = "MCPSUM_TEST_SHARED_CACHE"

// Isolation is a test process's own HOME, XDG folders and TMPDIR, all
// under Root, and what the user's real folders held before the tests ran.
type Isolation struct {
	Root string // the folder of this run: home/, run/, tmp/

	// Real holds the user's folders as they were before Isolate: the
	// places a test must never write ("state", "config", "cache" are
	// mcpsum's own folders under the XDG ones; "home" is HOME), and "tmp",
	// the temporary folder before (for what another user must enter).
	Real map[string]string

	before map[string]stamp
	nested bool // an outer test process isolated this one already
}

type stamp struct {
	size  int64
	mtime time.Time
}

// Isolate points HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME,
// XDG_DATA_HOME, XDG_RUNTIME_DIR and TMPDIR at fresh folders under one new
// temp folder, for this process and every program it starts, so no test
// reads or writes the real user's files (an import's backup record, taint
// state, a sign-in, the transparency log's cache). What tests share across
// runs on purpose keeps its real place: Go's build and module caches
// (GOCACHE, GOMODCACHE, GOPATH, GOENV are set to where they were), npm's
// cache (npm_config_cache) and SharedCacheEnv. Close checks the real
// folders and removes the temp one. In a process whose parent test already
// isolated it (IsolatedEnv set), Isolate changes nothing.
func Isolate() (*Isolation, error) {
	if root := os.Getenv(IsolatedEnv); root != "" {
		return &Isolation{Root: root, nested: true}, nil
	}
	home, _ := os.UserHomeDir()
	cache, _ := os.UserCacheDir()
	config, _ := os.UserConfigDir()
	iso := &Isolation{Real: map[string]string{"home": home, "tmp": os.TempDir()}}
	if home != "" {
		iso.Real["state"] = filepath.Join(xdg("XDG_STATE_HOME", filepath.Join(home, ".local", "state")), "mcpsum")
	}
	if config != "" {
		iso.Real["config"] = filepath.Join(config, "mcpsum")
	}
	if cache != "" {
		iso.Real["cache"] = filepath.Join(cache, "mcpsum")
	}
	shared := keepShared(home, cache, config)

	// A short root: unix socket paths under it must stay under 108 bytes.
	root, err := os.MkdirTemp("", "mt-")
	if err != nil {
		return nil, err
	}
	iso.Root = root
	h := filepath.Join(root, "home")
	set := map[string]string{
		"HOME":            h,
		"XDG_CONFIG_HOME": filepath.Join(h, ".config"),
		"XDG_STATE_HOME":  filepath.Join(h, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(h, ".cache"),
		"XDG_DATA_HOME":   filepath.Join(h, ".local", "share"),
		"XDG_RUNTIME_DIR": filepath.Join(root, "run"),
		"TMPDIR":          filepath.Join(root, "tmp"),
		IsolatedEnv:       root,
	}
	for k, v := range shared {
		set[k] = v
	}
	for _, d := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "TMPDIR"} {
		if err := os.MkdirAll(set[d], 0o700); err != nil {
			os.RemoveAll(root)
			return nil, err
		}
	}
	// Tests that run a program as another user (PostgreSQL's initdb,
	// mcpsum as nobody) need to enter the temporary folder, as they could
	// /tmp: root and TMPDIR are open like /tmp (sticky); HOME stays private.
	err = os.Chmod(root, 0o755)
	if err == nil {
		err = os.Chmod(set["TMPDIR"], 0o777|os.ModeSticky)
	}
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	iso.before = iso.snapshot()
	for k, v := range set {
		os.Setenv(k, v)
	}
	return iso, nil
}

// keepShared returns the variables that keep the caches tests share across
// runs where they were before HOME and the XDG folders move.
func keepShared(home, cache, config string) map[string]string {
	out := map[string]string{}
	if cache != "" {
		out[SharedCacheEnv] = cache
	}
	if os.Getenv(SharedCacheEnv) != "" {
		out[SharedCacheEnv] = os.Getenv(SharedCacheEnv)
	}
	goenv := os.Getenv("GOENV")
	if goenv == "" && config != "" {
		goenv = filepath.Join(config, "go", "env")
		out["GOENV"] = goenv
	}
	inFile := goEnvFile(goenv) // what the user's go env file sets stays its business
	gopath := os.Getenv("GOPATH")
	if gopath == "" && inFile["GOPATH"] == "" && home != "" {
		gopath = filepath.Join(home, "go")
		out["GOPATH"] = gopath
	}
	if os.Getenv("GOMODCACHE") == "" && inFile["GOMODCACHE"] == "" && inFile["GOPATH"] == "" && gopath != "" {
		out["GOMODCACHE"] = filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
	}
	if os.Getenv("GOCACHE") == "" && inFile["GOCACHE"] == "" && cache != "" {
		out["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	if os.Getenv("npm_config_cache") == "" && os.Getenv("NPM_CONFIG_CACHE") == "" && home != "" {
		out["npm_config_cache"] = filepath.Join(home, ".npm")
	}
	return out
}

// goEnvFile reads the KEY=VALUE lines of a go env file (go env -w).
func goEnvFile(path string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out
}

func xdg(name, def string) string {
	if v := os.Getenv(name); filepath.IsAbs(v) {
		return v
	}
	return def
}

// sharedCaches are the folders under the real cache/mcpsum that the tests
// and CI write on purpose, outside what watched checks: testbin's builds
// (GoBuild), the log's test peers (internal/sumlog/logtest; logpeers-ci
// is .ci/run's), .ci/build-checks.sh's reproducibility caches and
// ci/lib.sh's tools. They hold most of the files there (~17,000 on a
// machine that ran CI: two walks of them cost every test binary ~0.3
// CPU-seconds, ~15 per `go test ./...`), none of them mcpsum's own.
var sharedCaches = []string{"testbin", "logpeers", "logpeers-ci", "repro", "tools-bin"}

// watched are the real files and folders Close checks: mcpsum's own
// folders (all of them below, the shared caches excepted) and the files
// directly in HOME (a client's config such as ~/.claude.json).
func (iso *Isolation) watched(visit func(path string, info fs.FileInfo)) {
	for _, k := range []string{"state", "config", "cache"} {
		d := iso.Real[k]
		if d == "" {
			continue
		}
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && k == "cache" && filepath.Dir(p) == d && slices.Contains(sharedCaches, e.Name()) {
				return filepath.SkipDir
			}
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				visit(p, info)
			}
			return nil
		})
	}
	if h := iso.Real["home"]; h != "" {
		ents, _ := os.ReadDir(h)
		for _, e := range ents {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				visit(filepath.Join(h, e.Name()), info)
			}
		}
	}
}

func (iso *Isolation) snapshot() map[string]stamp {
	out := map[string]stamp{}
	iso.watched(func(p string, info fs.FileInfo) { out[p] = stamp{info.Size(), info.ModTime()} })
	return out
}

// Leaks lists the real files (see watched) that changed since Isolate and
// name a path under Root: written by this test process or a program it
// started. Other programs on the machine (another checkout's test run)
// may change the same files meanwhile; their content names other paths.
func (iso *Isolation) Leaks() []string {
	if iso.nested {
		return nil
	}
	var out []string
	iso.watched(func(p string, info fs.FileInfo) {
		if old, ok := iso.before[p]; ok && old == (stamp{info.Size(), info.ModTime()}) {
			return
		}
		if info.Size() > 64<<20 {
			return
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(iso.Root)) {
			out = append(out, p)
		}
	})
	sort.Strings(out)
	return out
}

// Close reports the tests' writes into the real folders (Leaks) as an
// error, and removes Root.
func (iso *Isolation) Close() error {
	if iso.nested {
		return nil
	}
	var errs []error
	if l := iso.Leaks(); len(l) > 0 {
		errs = append(errs, fmt.Errorf("tests wrote into the real user's folders (they must use the HOME and XDG folders testbin.Isolate gives them):\n  %s", strings.Join(l, "\n  ")))
	}
	if err := removeAll(iso.Root); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// removeAll removes dir, making read-only folders inside writable first
// (a test's module cache or a sandbox's files may be read-only).
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
