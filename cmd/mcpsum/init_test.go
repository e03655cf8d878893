package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInitIsCheap: mcpsum's own packages do next to no work before main
// runs, so every command (show, version, a proxy's start) starts fast.
// Compiling a package's regular expressions at start-up cost ~400 KB and
// ~3,000 allocations before (review's text rules, pkgspec's grammars, the
// trust file's names); they compile on first use now (lazyRegexp). The
// check counts bytes allocated by each package's init (GODEBUG=inittrace=1
// on this test binary, which links every package mcpsum does), never time.
func TestInitIsCheap(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const limit = 8 << 10 // bytes per package
	line := regexp.MustCompile(`(?m)^init (github\.com/mcpsum/mcpsum/(?:internal|pkg)/\S+) @.*, ([0-9]+) bytes, ([0-9]+) allocs$`)
	found := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		found++
		if n, _ := strconv.Atoi(m[2]); n > limit {
			t.Errorf("init of %s allocates %s bytes (%s allocations), over %d: compile or build it on first use", m[1], m[2], m[3], limit)
		}
	}
	// These run no initialiser at all: their package-level values are data
	// (lazyRegexp literals, tables, zero-value memos). A package that runs
	// one has every process fault in the 64 KiB block of the binary that
	// holds its init, though a proxy never calls into these packages
	// (docs/performance.md: the proxy's peak RSS is mostly such blocks).
	for _, pkg := range []string{"cli", "clientconfig", "fleet", "importer", "launch", "lookalike", "policy", "redact", "review", "verify", "../pkg/sumdb"} {
		name := "github.com/mcpsum/mcpsum/internal/" + pkg
		if strings.HasPrefix(pkg, "../") {
			name = "github.com/mcpsum/mcpsum/" + strings.TrimPrefix(pkg, "../")
		}
		if strings.Contains(string(out), "\ninit "+name+" @") {
			t.Errorf("%s runs an initialiser before main: make its package-level values data (lazyRegexp literals, tables, sync.Once memos), not map literals or function calls", name)
		}
	}
	if found < 5 {
		t.Fatalf("found %d inits of mcpsum's packages in the trace:\n%s", found, strings.TrimSpace(string(out)))
	}
}
