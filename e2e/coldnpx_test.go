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
// and a cut-short folder failed every later start. Where the project's
// node_modules holds a package at its locked version (the warm locks here)
// mcpsum installs nothing: npx runs that copy.
func TestColdNpxVerifyFirstTry(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("node_modules/@modelcontextprotocol/server-memory/package.json"); err != nil {
		requirePeers(t, "npm packages are not installed; run `npm ci` in e2e/")
	}
	reg := startNpmRegistry(t, 150*time.Millisecond)
	dir := t.TempDir()
	// The registry is the user's npm configuration (~/.npmrc): the server's
	// own npx resolves its package again when it starts, and gets HOME but
	// not npm_config_* (a server gets only its locked variables), so with
	// npm_config_registry it asked registry.npmjs.org (network, slow under
	// load: a start passed 30 s here).
	env := func(home string) []string {
		reg.userConfig(t, home)
		return []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
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
	warmHome := t.TempDir()
	warm, warmDir := env(warmHome), npmProject(t, false)
	shared := t.TempDir()
	var locks []func()
	for _, srv := range servers {
		args := []string{"lock", "--name", srv[0], "--", "npx", "-y", srv[1]}
		if srv[0] == "fs" {
			args = append(args, shared)
		}
		locks = append(locks, func() {
			if _, stderr, code := mcpsum(t, warmDir, warm, args...); code != 0 || strings.Contains(stderr, "installing") {
				t.Errorf("mcpsum %v: exit %d, want 0 and no install\n%s", args, code, stderr)
			}
		})
	}
	concurrently(locks...)
	// There npx runs the project's copy and installs nothing, so mcpsum
	// runs no install of its own either (it was a second npm start doing
	// nothing, ~2 CPU-seconds before each start of such a server).
	if logs, _ := filepath.Glob(filepath.Join(warmHome, "state", "mcpsum", "install", "*.log")); len(logs) != 0 {
		t.Errorf("mcpsum ran npx installs %v for packages the project holds at their locked versions", logs)
	}
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

// A package whose install needs a variable of the user's shell (as
// puppeteer's download needs PUPPETEER_SKIP_DOWNLOAD where there is no
// network): a plain npx sees it, the install mcpsum runs does not (it sees
// the server's variables and npm's configuration, proxies and
// certificates). lock names the variable, never its value, with the lock
// command that passes it; that command, run as printed, locks the server,
// its review says what the install sees, and the lock verifies on a cold
// machine. The package is written here (its install script fails as a
// browser download does offline; its server is the real server-memory, a
// dependency), served with e2e/node_modules' packages by the local
// registry; real npm and npx.
func TestInstallVariableEnvHint(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("node_modules/@modelcontextprotocol/server-memory/package.json"); err != nil {
		requirePeers(t, "npm packages are not installed; run `npm ci` in e2e/")
	}
	reg := startNpmRegistry(t, 0)
	const pkg = "mcpsum-e2e-browser@1.0.0"
	reg.add(map[string]string{
		"package.json": `{"name":"mcpsum-e2e-browser","version":"1.0.0","type":"module","bin":{"mcpsum-e2e-browser":"index.js"},` +
			`"scripts":{"postinstall":"node postinstall.cjs"},"dependencies":{"@modelcontextprotocol/server-memory":"2026.8.31"}}`,
		"index.js": "#!/usr/bin/env node\nimport \"@modelcontextprotocol/server-memory/dist/index.js\";\n",
		"postinstall.cjs": "if (!process.env.MCPSUM_E2E_SKIP_DOWNLOAD) {\n" +
			"  console.error(\"downloading the browser build: connect ENETUNREACH 203.0.113.9:443\");\n  process.exit(1);\n}\n",
	})
	const value = "skip-VALUE-not-shown"
	// The registry is the user's npm configuration (~/.npmrc), which both
	// the install and the server's own npx read (a server gets HOME).
	env := func(home string) []string {
		reg.userConfig(t, home)
		return []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "MCPSUM_E2E_SKIP_DOWNLOAD=" + value}
	}
	dir := t.TempDir()
	shell := env(t.TempDir())
	_, stderr, code := mcpsum(t, dir, shell, "lock", "--name", "web", "--", "npx", "-y", pkg)
	if code != 3 || strings.Contains(stderr, value) {
		t.Fatalf("lock of a package whose install needs MCPSUM_E2E_SKIP_DOWNLOAD: exit %d (want 3, the value never shown)\n%s", code, stderr)
	}
	next := hintCommand(t, stderr, "if the install needs one, lock it with it: ")
	args := strings.Fields(next)
	if len(args) < 2 || args[0] != "mcpsum" || !strings.Contains(next, "--env MCPSUM_E2E_SKIP_DOWNLOAD -- npx -y "+pkg) {
		t.Fatalf("want a lock command passing MCPSUM_E2E_SKIP_DOWNLOAD in:\n%s", stderr)
	}
	_, stderr, code = mcpsum(t, dir, shell, args[1:]...)
	if code != 0 {
		t.Fatalf("the suggested %q: exit %d\n%s", next, code, stderr)
	}
	// lock's review: what the install of this entry sees.
	sees := ""
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "lock: web: npx installs "+pkg) {
			sees = l
		}
	}
	if !strings.Contains(sees, "(here: HOME, ") || !strings.Contains(sees, "MCPSUM_E2E_SKIP_DOWNLOAD") || strings.Contains(sees, value) {
		t.Errorf("lock does not say what the install sees (HOME, the variable passed, PATH; no value):\n%s", stderr)
	}
	if lock, _ := os.ReadFile(filepath.Join(dir, "mcp.lock")); !strings.Contains(string(lock), `"MCPSUM_E2E_SKIP_DOWNLOAD"`) {
		t.Errorf("the lock does not pass MCPSUM_E2E_SKIP_DOWNLOAD:\n%s", lock)
	}
	if stdout, stderr, code := mcpsum(t, dir, env(t.TempDir()), "verify"); code != 0 {
		t.Errorf("verify on a cold machine: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
