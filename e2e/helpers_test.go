// Package e2e drives the built mcpsum binary against pinned real MCP servers:
// the official npm servers (installed by `npm ci` in this directory), the
// go-sdk v1.8.0 and mcp-go v1.2.1 example servers (built from the versions
// pinned in go.mod), and small servers of our own under e2e/servers.
package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
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
	targets := []struct {
		dst *string
		out string
		pkg string
	}{
		{&bin.mcpsum, "mcpsum", "github.com/mcpsum/mcpsum/cmd/mcpsum"},
		{&bin.attest, "mcpsum-attest", "github.com/mcpsum/mcpsum/cmd/mcpsum-attest"},
		{&bin.log, "mcpsum-log", "github.com/mcpsum/mcpsum/cmd/mcpsum-log"},
		{&bin.gosrv, "gosrv", "github.com/mcpsum/mcpsum/e2e/servers/gosrv"},
		{&bin.hostile, "hostile", "github.com/mcpsum/mcpsum/e2e/servers/hostile"},
		{&bin.goEvery, "go-everything", "github.com/modelcontextprotocol/go-sdk/examples/server/everything"},
		{&bin.goMemory, "go-memory", "github.com/modelcontextprotocol/go-sdk/examples/server/memory"},
		{&bin.goSeq, "go-sequentialthinking", "github.com/modelcontextprotocol/go-sdk/examples/server/sequentialthinking"},
		{&bin.mcpgoEvery, "mcpgo-everything", "github.com/mark3labs/mcp-go/examples/everything"},
		{&bin.mcpgoHTTP, "mcpgohttp", "github.com/mcpsum/mcpsum/e2e/servers/mcpgohttp"},
		{&bin.confclient, "confclient", "github.com/mcpsum/mcpsum/e2e/servers/confclient"},
		{&bin.goConf, "go-conformance", "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"},
	}
	var pkgs []string
	for _, t := range targets {
		*t.dst = filepath.Join(dir, t.out)
		pkgs = append(pkgs, t.pkg)
	}
	// One go build per target, but in a single invocation for the shared cache;
	// `go build -o dir/` names each binary after its package directory, so
	// build one by one to control names.
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	sem := make(chan struct{}, runtime.NumCPU())
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if t.out == "mcpsum" {
				// The settings of the Action's and the pre-commit hook's
				// build of mcpsum (scripts/action/build.sh,
				// scripts/pre-commit-hook.sh): the tests that run those
				// builds find its packages in the cache, and the
				// benchmarks measure the binary a release build makes.
				errs[i] = testbin.GoBuildRelease(*t.dst, t.pkg)
				return
			}
			// The other programs are built as go test and the README's
			// `go install ./cmd/...` (TestReadmeFirstCommands) build, so
			// they share the packages those compiled.
			errs[i] = testbin.GoBuild(*t.dst, t.pkg)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	_ = pkgs
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
