// Package e2e drives the built mcpsum binary against pinned real MCP servers:
// the official npm servers (installed by `npm ci` in this directory), the
// go-sdk v1.8.0 and mcp-go v1.2.1 example servers (built from the versions
// pinned in go.mod), and small servers of our own under e2e/servers.
package e2e

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// bin holds the paths of everything TestMain built.
var bin struct {
	dir        string
	mcpsum     string
	attest     string // mcpsum-attest, the signing helper, beside mcpsum
	log        string // mcpsum-log, the transparency log operator's binary
	gosrv      string // e2e/servers/gosrv: go-sdk server with drift knobs
	hostile    string // e2e/servers/hostile: a FAKE misbehaving server
	goEvery    string // go-sdk examples/server/everything (dual-era)
	goMemory   string // go-sdk examples/server/memory
	goSeq      string // go-sdk examples/server/sequentialthinking
	mcpgoEvery string // mcp-go v1.2.1 examples/everything
	mcpgoHTTP  string // e2e/servers/mcpgohttp: mcp-go v1.2.1's Streamable HTTP server
	confclient string // e2e/servers/confclient: mcpsum as the conformance suite's client
	goConf     string // go-sdk conformance/everything-server: the suite's server scenarios
	proxysrv   string // e2e/servers/proxysrv: internal/proxy/proxytest's go-sdk server
	proxyrelay string // e2e/servers/proxyrelay: a plain byte relay, the benchmarks' floor
	proxylean  string // e2e/servers/proxylean: the proxy without the rest of mcpsum linked in
	hello      string // e2e/servers/hello: the hello-world floor of the start benchmarks
	bareclient string // e2e/servers/bareclient: a bare client listing a server
	bigsrv     string // e2e/servers/bigsrv: a fast-starting 1,000-tool server
}

// TestMain builds every binary once, then runs the tests isolated from the
// real user's folders (testbin.Run: their own HOME, XDG folders and TMPDIR,
// checked after for writes into the real ones).
func TestMain(m *testing.M) {
	parallelDefault()
	os.Exit(testbin.Run(m, func() error {
		dir, err := os.MkdirTemp("", "mcpsum-e2e-") // inside the isolated TMPDIR: removed with it
		if err != nil {
			return err
		}
		bin.dir = dir
		if err := buildAll(dir); err != nil {
			return fmt.Errorf("e2e: building binaries: %w", err)
		}
		return nil
	}))
}

// parallelTests is how many tests run at once when `go test` was not given
// -parallel: the tests spend most of their time waiting for the programs
// they start (servers starting up, timeouts they provoke), so more of them
// than GOMAXPROCS (go test's default, 2 on a 2-core machine) keep the cores
// busy.
const parallelTests = 8

func parallelDefault() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < parallelTests {
		flag.Set("test.parallel", strconv.Itoa(parallelTests))
	}
}

func buildAll(dir string) error {
	// Every program is built with the settings of mcpsum's release builds
	// (scripts/action/build.sh, scripts/pre-commit-hook.sh: CGO_ENABLED=0
	// -trimpath -buildvcs=false): the benchmarks measure the binary a
	// release build makes, and nothing of the checkout's folder goes into
	// a binary, so one folder of them serves every clone (buildShared). Two
	// `go build -o folder/` runs, since the go-sdk's and mcp-go's examples
	// share the name "everything".
	groups := []struct {
		sub     string
		targets []struct {
			dst *string
			pkg string
		}
	}{
		{"release", []struct {
			dst *string
			pkg string
		}{
			{&bin.mcpsum, "github.com/mcpsum/mcpsum/cmd/mcpsum"},
			{&bin.attest, "github.com/mcpsum/mcpsum/cmd/mcpsum-attest"},
			{&bin.log, "github.com/mcpsum/mcpsum/cmd/mcpsum-log"},
			{&bin.gosrv, "github.com/mcpsum/mcpsum/e2e/servers/gosrv"},
			{&bin.hostile, "github.com/mcpsum/mcpsum/e2e/servers/hostile"},
			{&bin.mcpgoHTTP, "github.com/mcpsum/mcpsum/e2e/servers/mcpgohttp"},
			{&bin.confclient, "github.com/mcpsum/mcpsum/e2e/servers/confclient"},
			{&bin.proxysrv, "github.com/mcpsum/mcpsum/e2e/servers/proxysrv"},
			{&bin.proxyrelay, "github.com/mcpsum/mcpsum/e2e/servers/proxyrelay"},
			{&bin.proxylean, "github.com/mcpsum/mcpsum/e2e/servers/proxylean"},
			{&bin.hello, "github.com/mcpsum/mcpsum/e2e/servers/hello"},
			{&bin.bareclient, "github.com/mcpsum/mcpsum/e2e/servers/bareclient"},
			{&bin.bigsrv, "github.com/mcpsum/mcpsum/e2e/servers/bigsrv"},
			{&bin.goEvery, "github.com/modelcontextprotocol/go-sdk/examples/server/everything"},
			{&bin.goMemory, "github.com/modelcontextprotocol/go-sdk/examples/server/memory"},
			{&bin.goSeq, "github.com/modelcontextprotocol/go-sdk/examples/server/sequentialthinking"},
			{&bin.goConf, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"},
		}},
		{"release-mcpgo", []struct {
			dst *string
			pkg string
		}{
			{&bin.mcpgoEvery, "github.com/mark3labs/mcp-go/examples/everything"},
		}},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(groups))
	for i, g := range groups {
		out := filepath.Join(dir, g.sub)
		var pkgs []string
		for _, t := range g.targets {
			*t.dst = filepath.Join(out, path.Base(t.pkg))
			pkgs = append(pkgs, t.pkg)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = buildShared(out, g.sub, pkgs)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// buildShared builds pkgs into the folder out (named after each package's
// folder) in one `go build` with release settings. With the tests' shared
// cache (testbin.SharedCacheEnv) it builds into a folder of the same name
// there and hard-links (or copies) the results into out: go build leaves a
// program whose build ID is current as it is, so a run, in this clone or
// another, whose programs' sources did not change links nothing (linking
// was most of this TestMain's ~25 CPU-seconds in a fresh clone), and one
// go run checks all the programs (~0.5 CPU-seconds each when run one by
// one). The links are the run's own: a later run that rebuilds a shared
// program never changes a file this run executes. A file lock keeps two
// runs from building into the folder at once.
func buildShared(out, name string, pkgs []string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	target := out
	if shared := os.Getenv(testbin.SharedCacheEnv); shared != "" {
		d := filepath.Join(shared, "mcpsum", "testbin", "e2e-"+name)
		if os.MkdirAll(d, 0o755) == nil {
			// Without file locks (not unix) each run builds its own.
			if unlock, err := testbin.LockFile(d + ".lock"); err == nil {
				defer unlock()
				target = d
			}
		}
	}
	//lint:ignore SA1019 the toolchain that built this test builds its programs
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, append([]string{"build", "-trimpath", "-buildvcs=false", "-o", target + string(filepath.Separator)}, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, o)
	}
	if target == out {
		return nil
	}
	for _, p := range pkgs {
		src, dst := filepath.Join(target, path.Base(p)), filepath.Join(out, path.Base(p))
		if os.Link(src, dst) == nil {
			continue
		}
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o755)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// npmServer returns the entry point of an official npm server installed by
// `npm ci` in e2e/, skipping the test when it is missing (failing in CI).
func npmServer(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", name, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		requirePeers(t, "npm package @modelcontextprotocol/"+name+" is not installed; run `npm ci` in e2e/")
	}
	return p
}

// inspector returns the @modelcontextprotocol/inspector CLI launcher.
func inspector(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		requirePeers(t, "@modelcontextprotocol/inspector is not installed; run `npm ci` in e2e/")
	}
	return p
}

// requirePeers skips locally but fails in CI (MCPSUM_E2E_REQUIRE=1): a
// missing peer must never be a silent pass there.
func requirePeers(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// mcpsum runs the built binary in dir and returns stdout, stderr and the exit code.
func mcpsum(t testing.TB, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin.mcpsum, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running mcpsum %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return stdout.String(), stderr.String(), code
}
