package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A fresh machine (an empty HOME: a new CI runner) verifies a lock of npx
// servers on the first try: each package is installed by npx before its
// server starts, at most InstallSlots installs at a time (max(1, min(4,
// cores/2))), each with its own time, so a start allowance far shorter than
// an install (--start-timeout-secs 2 here, installs of several seconds)
// does not fail them. What an install cut short leaves (npx's folder with
// node_modules but not the package.json npm writes last) is removed and
// installed again. Real npm and npx against a local registry serving the
// packages of e2e/node_modules (npmregistry_test.go): no network. Before,
// every npx install started at once and ran inside the start allowance,
// and a cut-short folder failed every later start.
func TestColdNpxVerifyFirstTry(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("node_modules/@modelcontextprotocol/server-memory/package.json"); err != nil {
		requirePeers(t, "npm packages are not installed; run `npm ci` in e2e/")
	}
	reg := startNpmRegistry(t, 150*time.Millisecond)
	dir := t.TempDir()
	env := func(home string) []string {
		return []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "npm_config_registry=" + reg.url,
			"npm_config_update_notifier=false", "npm_config_audit=false", "npm_config_fund=false"}
	}
	// One server more than the machine's install slots (as many as three
	// packages: with 2 cores, one slot and two servers), so the cap on
	// installs at once is exercised without more installs than that needs.
	// The lock is made where npx finds the packages installed (a folder
	// linking e2e/node_modules: no install), the servers at once
	// (concurrent locks into one mcp.lock), and copied to dir, where npx
	// finds nothing: what the cold machine verifies is installed there.
	slots := max(1, min(4, runtime.NumCPU()/2))
	all := [][2]string{{"mem", "@modelcontextprotocol/server-memory@2026.8.31"}, {"seq", "@modelcontextprotocol/server-sequential-thinking@2026.8.31"}, {"fs", "@modelcontextprotocol/server-filesystem@2026.8.31"}}
	servers := all[:min(len(all), slots+1)]
	npmServer(t, "server-filesystem")
	warm, warmDir := env(t.TempDir()), npmProject(t, false)
	shared := t.TempDir()
	var locks []func()
	for _, srv := range servers {
		args := []string{"lock", "--name", srv[0], "--", "npx", "-y", srv[1]}
		if srv[0] == "fs" {
			args = append(args, shared)
		}
		locks = append(locks, func() {
			if _, stderr, code := mcpsum(t, warmDir, warm, args...); code != 0 {
				t.Errorf("mcpsum %v: exit %d\n%s", args, code, stderr)
			}
		})
	}
	concurrently(locks...)
	if t.Failed() {
		t.FailNow()
	}
	must(t, os.WriteFile(filepath.Join(dir, "mcp.lock"), []byte(readFile(t, filepath.Join(warmDir, "mcp.lock"))), 0o644))

	home := t.TempDir()
	cold := env(home)
	reg.mu.Lock()
	clear(reg.spans)
	reg.mu.Unlock()
	stdout, stderr, code := mcpsum(t, dir, cold, "verify", "--start-timeout-secs", "2")
	if code != 0 {
		t.Fatalf("verify on a cold machine: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := reg.maxOverlap(); n > slots {
		t.Errorf("%d npm processes downloaded at once, want at most %d", n, slots)
	}

	// An install cut short: node_modules without the folder's package.json
	// and without a dependency.
	folders, _ := filepath.Glob(filepath.Join(home, ".npm", "_npx", "*"))
	if len(folders) != len(servers) {
		t.Fatalf("npx folders %v, want one per server", folders)
	}
	var cut string
	for _, f := range folders {
		if _, err := os.Stat(filepath.Join(f, "node_modules", "@modelcontextprotocol", "server-memory")); err == nil {
			cut = f
		}
	}
	if err := os.Remove(filepath.Join(cut, "package.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(cut, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = mcpsum(t, dir, cold, "verify", "--name", "mem", "--start-timeout-secs", "2")
	if code != 0 || !strings.Contains(stderr+stdout, "removed npx's half-installed folder "+cut) {
		t.Fatalf("verify after an install was cut short: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
