package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A server that fails for want of a variable mcpsum withholds, and says
// so (LANG here; postgres fails so without USER), gets a hint naming that
// variable, never its value (nor the other withheld ones it did not name),
// and the lock command with the --env to add; that command, run as
// printed, locks it.
func TestLockWithheldEnvHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const value = "xx_NOT-SHOWN.UTF-8"
	env := []string{"LANG=" + value, "USER=e2e-user-not-shown"}
	_, stderr, code := mcpsum(t, dir, env, "lock", "--name", "g", "--", bin.gosrv, "-require-env", "LANG")
	if code != 3 || !strings.Contains(stderr, "no LANG specified") {
		t.Fatalf("lock of a server needing LANG: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, value) || strings.Contains(stderr, "e2e-user-not-shown") {
		t.Errorf("a withheld variable's value was shown:\n%s", stderr)
	}
	next := hintCommand(t, stderr, "lock it with the ones it needs: ")
	args := strings.Fields(next)
	if len(args) < 2 || args[0] != "mcpsum" || !strings.Contains(next, "--env LANG") || strings.Contains(next, "--env USER") {
		t.Fatalf("want a lock command with --env LANG alone in:\n%s", stderr)
	}
	if _, stderr, code := mcpsum(t, dir, env, args[1:]...); code != 0 {
		t.Fatalf("the suggested %q: exit %d\n%s", next, code, stderr)
	}
}

// hintCommand returns what follows lead on a "hint:" line of out, the
// line's first such; the test fails when there is none.
func hintCommand(t *testing.T, out, lead string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if _, h, ok := strings.Cut(l, "hint: "); ok {
			if _, cmd, ok := strings.Cut(h, lead); ok {
				return cmd
			}
		}
	}
	t.Fatalf("no hint line with %q in:\n%s", lead, out)
	return ""
}

// The likeliest CI failure: a project whose server is a Node package in
// its node_modules, checked out afresh (node_modules is never committed).
// Node fails with MODULE_NOT_FOUND; verify and lock name the project's
// install command (npm ci), not --env advice that would change the
// committed lock and fix nothing; lock leaves mcp.lock as it was; the
// command, run as printed, makes verify pass. (The package is a local
// file: dependency wrapping the real server-memory, so npm ci needs no
// network.)
func TestNodeModulesMissingHint(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	vendor := filepath.Join(proj, "vendor", "memsrv")
	writeFiles(t, map[string]string{
		filepath.Join(vendor, "package.json"): `{"name":"memsrv","version":"1.0.0","type":"module","main":"index.js"}`,
		filepath.Join(vendor, "index.js"):     "import " + strconv.Quote(npmServer(t, "server-memory")) + ";\n",
		filepath.Join(proj, "package.json"):   `{"name":"proj","private":true,"dependencies":{"memsrv":"file:./vendor/memsrv"}}`,
	})
	npmEnv := append(os.Environ(), "npm_config_offline=true", "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false")
	sh := func(script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir, cmd.Env = proj, npmEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	sh("npm install")
	env := []string{"LANG=C.UTF-8", "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt"}
	mustLock(t, proj, env, "--name", "mem", "--", "node", "node_modules/memsrv/index.js")
	locked, _ := os.ReadFile(filepath.Join(proj, "mcp.lock"))
	sh("rm -rf node_modules") // a fresh clone

	stdout, _, code := mcpsum(t, proj, env, "verify")
	install := hintCommand(t, stdout, "install them, then run mcpsum again: ")
	if code != 3 || install != "cd "+proj+" && npm ci" || strings.Contains(stdout, "--env") {
		t.Fatalf("verify without node_modules: exit %d, want the hint %q and no --env advice:\n%s", code, "cd "+proj+" && npm ci", stdout)
	}
	_, stderr, code := mcpsum(t, proj, env, "lock")
	if code != 3 || hintCommand(t, stderr, "install them, then run mcpsum again: ") != install || strings.Contains(stderr, "--env") {
		t.Errorf("re-lock without node_modules: exit %d\n%s", code, stderr)
	}
	if now, _ := os.ReadFile(filepath.Join(proj, "mcp.lock")); string(now) != string(locked) {
		t.Errorf("a failed re-lock changed mcp.lock")
	}
	sh(install)
	if stdout, _, code := mcpsum(t, proj, env, "verify"); code != 0 {
		t.Errorf("verify after %q: exit %d\n%s", install, code, stdout)
	}
}

// A server that fails because a file or folder it was given is not there
// (server-filesystem's allowed folder) is told that path, not --env advice;
// once the folder is created, as the hint says, it locks.
func TestMissingPathHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "shared", "docs")
	_, stderr, code := mcpsum(t, dir, []string{"LANG=C.UTF-8"}, "lock", "--name", "fs", "--", "node", npmServer(t, "server-filesystem"), missing)
	if code != 3 || !strings.Contains(stderr, "hint: the server looked for "+missing+", which does not exist here: create it") || strings.Contains(stderr, "--env") {
		t.Fatalf("lock of server-filesystem with a missing folder: exit %d\n%s", code, stderr)
	}
	if err := os.MkdirAll(missing, 0o755); err != nil {
		t.Fatal(err)
	}
	mustLock(t, dir, nil, "--name", "fs", "--", "node", npmServer(t, "server-filesystem"), missing)
}

// A server slower to start than --start-timeout-secs (a cold npx
// download) is started once per command, not again to probe its era (a
// second start killed a package manager mid-install twice), and the error
// names the flag that gives it more time; with that flag it verifies.
func TestSlowStartOnceWithHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := filepath.Join(t.TempDir(), "starts")
	mustLock(t, dir, []string{"GOSRV_START_DELAY=0s"}, "--name", "slow", "--env", "GOSRV_START_DELAY", "--", bin.gosrv, "-versions", "2025-11-25", "-starts-file", starts)
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "started")
	}
	slow := []string{"GOSRV_START_DELAY=4s"}
	before := count()
	stdout, _, code := mcpsum(t, dir, slow, "verify", "--start-timeout-secs", "1", "--timeout-secs", "1")
	if code != 3 || !strings.Contains(stdout, "give it more time: --start-timeout-secs") {
		t.Fatalf("verify of a slow server: exit %d\n%s", code, stdout)
	}
	if n := count() - before; n != 1 {
		t.Errorf("verify started the server %d times, want once", n)
	}
	if _, stderr, code := mcpsum(t, dir, slow, "verify", "--start-timeout-secs", "30", "--timeout-secs", "1"); code != 0 {
		t.Errorf("verify with --start-timeout-secs 30: exit %d\n%s", code, stderr)
	}
	before = count()
	_, stderr, code := mcpsum(t, dir, slow, "lock", "--start-timeout-secs", "1", "--timeout-secs", "1")
	if code != 3 || !strings.Contains(stderr, "--start-timeout-secs") || count()-before != 1 {
		t.Errorf("re-lock of a slow server: exit %d, %d starts\n%s", code, count()-before, stderr)
	}
}

// A server whose npx cache folder is half-installed (what a download
// killed mid-way leaves: the package is there, a dependency is not) fails
// with node's real ERR_MODULE_NOT_FOUND; lock names the folder and the
// command that removes it, and that command, run as printed, removes it.
func TestBrokenNpxCacheHint(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	folder := filepath.Join(home, ".npm", "_npx", "c98ccc168155bafa")
	pkg := filepath.Join(folder, "node_modules", "@modelcontextprotocol", "server-memory")
	if err := os.CopyFS(pkg, os.DirFS(filepath.Dir(filepath.Dir(npmServer(t, "server-memory"))))); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := mcpsum(t, dir, []string{"HOME=" + home}, "lock", "--name", "mem", "--", "node", filepath.Join(pkg, "dist", "index.js"))
	_, next, ok := strings.Cut(stderr, "looks half-installed")
	_, next, _ = strings.Cut(next, "remove it and start again: ")
	next, _, _ = strings.Cut(next, "\n")
	if code != 3 || !ok || next != "rm -rf "+folder || !strings.Contains(stderr, folder) {
		t.Fatalf("lock of a server in a half-installed npx folder: exit %d, suggested %q\n%s", code, next, stderr)
	}
	if out, err := exec.Command("sh", "-c", next).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", next, err, out)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("%s still there after %q: %v", folder, next, err)
	}
}

// Opt-in (MCPSUM_E2E_NETWORK=1; it downloads server-memory and its
// dependencies, about 40 s here): verify of an npx entry on a cold cache
// with --start-timeout-secs far shorter than the download passes on the
// first try, since mcpsum installs the package before the server starts
// and the install has its own time (before, the start allowance ran out,
// verify killed npx mid-install, and every later start failed with
// ERR_MODULE_NOT_FOUND until the _npx folder was removed). The offline
// version, against a local registry: TestColdNpxVerifyFirstTry.
func TestColdNpxFromRegistry(t *testing.T) {
	t.Parallel()
	if os.Getenv("MCPSUM_E2E_NETWORK") != "1" {
		t.Skip("set MCPSUM_E2E_NETWORK=1 to run (downloads from the npm registry)")
	}
	dir := t.TempDir()
	argv := []string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"}
	mustLock(t, dir, []string{"HOME=" + t.TempDir()}, append([]string{"--name", "mem", "--"}, argv...)...)
	home := t.TempDir()
	cold := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}
	if stdout, stderr, code := mcpsum(t, dir, cold, "verify", "--start-timeout-secs", "8", "--timeout-secs", "2"); code != 0 {
		t.Fatalf("verify on a cold npx cache with 8 s: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// A package broken upstream (npx's install finished: its folder's
// package.json is there, yet a file is missing) is not called
// half-installed: removing the folder would install the same again, so
// the hint says what is missing and to lock another version, never rm -rf.
func TestBrokenUpstreamNpxHint(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	folder := filepath.Join(home, ".npm", "_npx", "c98ccc168155bafa")
	pkg := filepath.Join(folder, "node_modules", "@modelcontextprotocol", "server-memory")
	if err := os.CopyFS(pkg, os.DirFS(filepath.Dir(filepath.Dir(npmServer(t, "server-memory"))))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "package.json"), []byte(`{"dependencies":{"@modelcontextprotocol/server-memory":"2026.8.31"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := mcpsum(t, dir, []string{"HOME=" + home}, "lock", "--name", "mem", "--", "node", filepath.Join(pkg, "dist", "index.js"))
	if code != 3 || !strings.Contains(stderr, "is complete (its package.json is there), yet a file it needs is missing") ||
		!strings.Contains(stderr, "@modelcontextprotocol/sdk") || strings.Contains(stderr, "rm -rf") || strings.Contains(stderr, "half-installed") {
		t.Fatalf("lock of a server whose finished npx install lacks a file: exit %d\n%s", code, stderr)
	}
}

// writeFiles writes each file (path → content), making its folders.
func writeFiles(t *testing.T, files map[string]string) {
	t.Helper()
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
