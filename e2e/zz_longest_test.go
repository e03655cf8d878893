package e2e

// The package's longest tests, in the file that sorts last, the longest
// last. go test releases the paused parallel tests all at once, and Go's
// scheduler starts them roughly from the last declared to the first (the
// closed channel readies its waiters last-in first-out), 8 at a time
// (parallelDefault): declared elsewhere, these waited behind most of the
// package (TestReadmeFirstCommands and TestProxyInspector started ~177 s
// into a 242 s run, its last 25 s the two of them alone), here they start
// first and the short tests fill the cores around them (TestSumdbEndToEnd
// and TestServeConformance, declared beside the tests of their subjects,
// started ~168 s and ~210 s into a 280 s run and ended it). Only the last
// three or four declared reliably start in the first wave, so the longest
// (by wall time in a whole run) are last. The order decides
// only how soon a test starts, never what it checks; TestTestsRunInParallel
// keeps this file last and holding only these tests. Their helpers stay
// beside the tests of their subject.

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// A package whose install needs a variable of the user's shell (as
// puppeteer's download needs PUPPETEER_SKIP_DOWNLOAD where there is no
// network): a plain npx sees it, the install mcpsum runs does not (it sees
// the server's variables and npm's configuration, proxies and
// certificates). lock names the variable, never its value, with the lock
// command that passes it; that command, run as printed, locks the server,
// its review says what the install sees, and the lock verifies on a cold
// machine. The package is written here (its install script fails as a
// browser download does offline; its server is the real server-memory of
// e2e/node_modules, imported by its path), served by the local registry;
// real npm and npx. The package has no dependencies: each of the three
// installs is of one package, not of server-memory's tree of ~90 (~6 CPU-s
// each, docs/performance.md); what is tested is what the install sees,
// and npm's installs of whole trees are TestColdNpxVerifyFirstTry's.
func TestInstallVariableEnvHint(t *testing.T) {
	t.Parallel()
	memory := npmServer(t, "server-memory")
	reg := startNpmRegistry(t, 0)
	const pkg = "mcpsum-e2e-browser@1.0.0"
	reg.add(map[string]string{
		"package.json": `{"name":"mcpsum-e2e-browser","version":"1.0.0","type":"module","bin":{"mcpsum-e2e-browser":"index.js"},` +
			`"scripts":{"postinstall":"node postinstall.cjs"}}`,
		"index.js": "#!/usr/bin/env node\nimport " + strconv.Quote(memory) + ";\n",
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

// The README's first commands work for a new user, as written: the install
// command, "Set up, run, test" and "A first lock, step by step" run verbatim
// with sh -e in fresh folders, each new shell with the installed mcpsum on
// PATH. CI has no network, so three commands are served locally by shims
// that refuse anything else: `git clone https://github.com/mcpsum/mcpsum`
// links this checkout, `npx -y @modelcontextprotocol/server-everything@2026.8.31`
// runs the same pinned version from e2e/node_modules, and `go install` of
// go-sdk's everything example copies the one e2e built from go.mod's pin.
func TestReadmeFirstCommands(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}

	shims := t.TempDir()
	// The GOBIN is the one TestSignHelperMissingSaysHowToInstall installs
	// into (installFolder), holding only what the install writes: there go
	// install finds the programs of an earlier install of the same sources
	// up to date and links nothing.
	gobin := installFolder(t)
	entries, err := os.ReadDir(gobin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(cmdPrograms, e.Name()) {
			must(t, os.RemoveAll(filepath.Join(gobin, e.Name())))
		}
	}
	everything := npmServer(t, "server-everything")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(shims, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("git", fmt.Sprintf(`if [ "$1 $2" = "clone https://github.com/mcpsum/mcpsum" ] && [ $# -eq 2 ]; then exec ln -sfn %q mcpsum; fi
exec %q "$@"
`, repo, realGit))
	// mcpsum installs a locked npx command's package before starting it
	// (npx --yes --package=PKG -- true): the package is "installed" here.
	write("npx", fmt.Sprintf(`if [ "$*" = "-y @modelcontextprotocol/server-everything@2026.8.31" ]; then exec node %q; fi
if [ "$*" = "--yes --package=@modelcontextprotocol/server-everything@2026.8.31 -- true" ]; then exit 0; fi
echo "npx shim: no network in this test; unexpected: npx $*" >&2; exit 1
`, everything))
	// Any other go command runs the real go, from the physical folder: the
	// "clone" is a link to this checkout, and go keys a main module's
	// compiled packages by their folder, so run through the link's path the
	// README's `go install ./cmd/...` compiled all of mcpsum's packages again
	// (~34 CPU-seconds in a fresh clone), while from the checkout's own path
	// it finds those `go test` and `go vet` compiled there. A real clone is a
	// real folder; the link is only this test's stand-in for it.
	write("go", fmt.Sprintf(`if [ "$*" = "install github.com/modelcontextprotocol/go-sdk/examples/server/everything@v1.8.0" ]; then exec cp %q "${GOBIN:?}/everything"; fi
cd -P .
exec %q "$@"
`, bin.goEvery, realGo))
	env := append(os.Environ(), "PATH="+shims+":"+gobin+":"+os.Getenv("PATH"), "GOBIN="+gobin, "TMPDIR="+t.TempDir())
	run := func(what, dir, script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-e", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README %s failed: %v\n--- script ---\n%s--- output ---\n%s", what, err, script, out)
		}
		return string(out)
	}

	// Install: clone, then go install from the clone into the GOBIN. The
	// three programs are this install's: go install sets the time of a
	// program it found up to date, as of one it wrote.
	start := time.Now().Truncate(time.Second)
	run("Install", t.TempDir(), readmeBlock(t, readme, "## Install"))
	for _, name := range cmdPrograms {
		if fi, err := os.Stat(filepath.Join(gobin, name)); err != nil || fi.ModTime().Before(start) {
			t.Fatalf("the README's install command did not install %s: %v", name, err)
		}
	}

	// Set up: a fresh folder of its own, never the clone.
	before, _ := os.Stat(filepath.Join(repo, "mcp.lock"))
	out := run("Set up, run, test", t.TempDir(), readmeBlock(t, readme, "## Set up, run, test"))
	if after, _ := os.Stat(filepath.Join(repo, "mcp.lock")); (before == nil) != (after == nil) {
		t.Errorf("the set-up commands wrote mcp.lock into the clone")
	}
	if !strings.Contains(out, "server everything") || !strings.Contains(out, "17 tools") {
		t.Errorf("set-up's show did not review the locked server:\n%s", out)
	}

	// A first lock, in a project folder that is a git repository.
	project := t.TempDir()
	run("git init", project, "git init -q")
	out = run("A first lock", project, readmeBlock(t, readme, "## A first lock, step by step"))
	if !strings.Contains(out, "ok     everything") || !strings.Contains(out, "ok     go-everything") {
		t.Errorf("the tour's verify did not pass both servers:\n%s", out)
	}
	// The README's own example must not earn a warning from the commands it
	// shows (an absolute path inside the lockfile's folder did).
	if strings.Contains(out, "warning:") {
		t.Errorf("the README's first lock prints warnings:\n%s", out)
	}
	l, err := lockfile.Load(filepath.Join(project, "mcp.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 2 || len(l.Servers) != 2 {
		t.Errorf("the tour's lock: version %d, %d servers; the README says version 2 with two servers", l.Version, len(l.Servers))
	}
	if staged := run("git diff", project, "git diff --cached --name-only"); strings.TrimSpace(staged) != "mcp.lock" {
		t.Errorf("git add mcp.lock staged %q", staged)
	}
}

// The official MCP conformance suite's server scenarios against the npm
// server-everything, over HTTP directly (its streamableHttp mode) and
// through `mcpsum serve` (the same server locked as a stdio upstream):
// every scenario that passes directly passes through serve, and serve
// passes dns-rebinding-protection (Host and Origin checked), which the
// server itself fails. docs/serve.md lists what passes.
func TestServeConformance(t *testing.T) {
	t.Parallel()
	node := node22(t)
	suite, err := filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(suite); err != nil {
		requirePeers(t, "@modelcontextprotocol/conformance is not installed; run `npm ci` in e2e/")
	}
	everything := npmServer(t, "server-everything")

	// Directly: each server's own Streamable HTTP at /mcp (legacy sessions).
	direct := map[string]string{}
	for name, argv := range map[string][]string{
		"every":  {"node", everything, "streamableHttp"},
		"goconf": {bin.goConf, "-stateless=false", "-http"},
	} {
		addr := freeLoopback(t)
		_, port, _ := net.SplitHostPort(addr)
		if name == "goconf" {
			argv = append(argv, addr)
		}
		srv := exec.Command(argv[0], argv[1:]...)
		srv.Env = append(os.Environ(), "PORT="+port)
		var srvLog testbin.SyncBuffer
		srv.Stdout, srv.Stderr = &srvLog, &srvLog
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
		for deadline := time.Now().Add(60 * time.Second); !strings.Contains(srvLog.String(), "listening"); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s over HTTP did not start:\n%s", name, srvLog.String())
			}
		}
		direct[name] = "http://localhost:" + port + "/mcp"
	}

	// Through serve, the same servers locked as stdio upstreams. The suite
	// cannot send a header (its server command takes only --url), so a
	// reverse proxy in the test adds serve's bearer token: a test fixture
	// standing in for a client configured with the header. It passes Host
	// and Origin through unchanged, so serve sees what the suite sends
	// (dns-rebinding-protection's evil Host included).
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "every", "--", "node", everything)
	// go-sdk's conformance server speaks both eras; its asking tools send
	// legacy requests (sampling/createMessage, elicitation/create), which
	// go-sdk refuses inside a 2026-07-28 request, and serve speaks to a
	// server only in its locked era: the suite's legacy client is asked
	// through serve when the server is locked legacy (TestLegacyClientAskedByDualEraServer,
	// TestEraHintThroughProxyAndServe).
	mustLock(t, dir, nil, "--era", "legacy", "--name", "goconf", "--", bin.goConf)
	_, env := taintState(t)
	p := startServe(t, dir, "", env)
	target, err := url.Parse(p.url)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+p.token)
		},
		FlushInterval: -1,
	}
	front := httptest.NewServer(rp)
	t.Cleanup(front.Close)
	_, fport, _ := net.SplitHostPort(strings.TrimPrefix(front.URL, "http://"))

	type run struct {
		got map[string]bool
		out string
	}
	runs := map[string]*run{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, u := range direct {
		for how, u := range map[string]string{"direct": u, "serve": "http://localhost:" + fport + "/servers/" + name + "/mcp"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, out := runServerSuite(t, node, suite, u)
				mu.Lock()
				runs[name+" "+how] = &run{got, out}
				mu.Unlock()
			}()
		}
	}
	wg.Wait()

	for _, name := range []string{"every", "goconf"} {
		d, s := runs[name+" direct"], runs[name+" serve"]
		var passDirect, passServe, vacuous []string
		for sc, ok := range d.got {
			if ok {
				passDirect = append(passDirect, sc)
			}
			if ok && !s.got[sc] {
				rep := scenarioReport(s.out, "server-"+sc)
				if name == "every" && refusedUnlocked(rep) {
					vacuous = append(vacuous, sc)
					continue
				}
				t.Errorf("%s: %s passes directly but not through serve:\n%s", name, sc, rep)
			}
		}
		for sc, ok := range s.got {
			if ok {
				passServe = append(passServe, sc)
			}
		}
		sort.Strings(passDirect)
		sort.Strings(passServe)
		sort.Strings(vacuous)
		t.Logf("%s: pass directly (%d): %s", name, len(passDirect), strings.Join(passDirect, " "))
		t.Logf("%s: pass through serve (%d): %s", name, len(passServe), strings.Join(passServe, " "))
		if len(vacuous) > 0 {
			t.Logf("%s: pass directly on a tool or resource the server does not have, refused by serve as not locked (%d): %s", name, len(vacuous), strings.Join(vacuous, " "))
		}
		if name == "goconf" && len(passServe) != len(s.got) {
			t.Errorf("goconf (locked --era legacy): %d of %d scenarios pass through serve, want all", len(passServe), len(s.got))
		}
		if len(passDirect) < 8 {
			t.Errorf("%s: only %d scenarios pass directly: the direct run is broken", name, len(passDirect))
		}
		if !s.got["dns-rebinding-protection"] {
			t.Errorf("%s: serve fails dns-rebinding-protection:\n%s\n%s", name, scenarioReport(s.out, "server-dns-rebinding-protection"), p.stderr)
		}
	}
	if runs["every direct"].got["dns-rebinding-protection"] {
		t.Logf("server-everything now passes dns-rebinding-protection itself: update docs/serve.md")
	}
}

// The inspector CLI (TS SDK v2 client) in both eras through the proxy, in
// front of a legacy npm server and a 2026-07-28 go-sdk server: each call's
// result equals the one the inspector gets from the server directly (in the
// era the server speaks).
func TestProxyInspector(t *testing.T) {
	t.Parallel()
	insp := inspector(t)
	targets := []struct {
		name, era string
		argv      []string
		tool      string
		args      string
	}{
		{"npm-everything", "legacy", []string{"node", npmServer(t, "server-everything")}, "get-sum", `{"a":2,"b":3}`},
		{"go-everything", "modern", []string{bin.goEvery}, "greet", `{"name":"inspector"}`},
	}
	run := func(t *testing.T, dir, era string, env []string, argv ...string) json.RawMessage {
		t.Helper()
		args := []string{insp, "--cli", "--format", "json", "-q", "--protocol-era", era}
		if dir != "" {
			args = append(args, "--cwd", dir)
		}
		for _, e := range env {
			args = append(args, "-e", e)
		}
		args = append(args, argv...)
		cmd := exec.Command("node", args...)
		var stderr testbin.SyncBuffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", argv, err, out, stderr.String())
		}
		var m struct{ Result json.RawMessage }
		if err := json.Unmarshal(out, &m); err != nil || m.Result == nil {
			t.Fatalf("inspector output has no result: %s", out)
		}
		return m.Result
	}
	content := func(res json.RawMessage) string {
		var r struct{ Content json.RawMessage }
		json.Unmarshal(res, &r)
		return string(r.Content)
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			dir := t.TempDir()
			mustLock(t, dir, nil, append([]string{"--name", "s", "--"}, tg.argv...)...)
			call := []string{"--method", "tools/call", "--tool-name", tg.tool, "--tool-args-json", tg.args}
			want := content(run(t, "", tg.era, nil, append(slices.Clone(tg.argv), call...)...))
			for _, era := range []string{"legacy", "modern"} {
				got := content(run(t, dir, era, []string{"MCPSUM_NAME=s"}, append([]string{bin.mcpsum, "proxy"}, call...)...))
				if got == "" || got != want {
					t.Errorf("%s inspector: content through the proxy\n%s\ndiffers from the direct one\n%s", era, got, want)
				}
				var tl struct{ Tools []struct{ Name string } }
				json.Unmarshal(run(t, dir, era, []string{"MCPSUM_NAME=s"}, bin.mcpsum, "proxy", "--method", "tools/list"), &tl)
				l, _ := readLock(t, dir)
				if len(tl.Tools) != len(l.Servers["s"].Tools) {
					t.Errorf("%s inspector: tools/list through the proxy listed %d tools, the lock has %d", era, len(tl.Tools), len(l.Servers["s"].Tools))
				}
			}
		})
	}
}

// The transparency log end to end, on loopback, with the real npm servers
// locked through npx: an operator logs what the honest install shows; a
// user locking the same packages matches it and stores proofs that verify
// --offline checks with no network; a user whose install was tampered with
// gets a SECURITY ERROR and an unchanged mcp.lock; an excluded key sends no
// request; an unreachable log fails the lock; a stale copy of the log is
// its past; a log that rolls back or forks is caught against the checkpoint
// remembered in the state folder, or on a fresh machine against the
// checkpoints of the committed lock's proofs.
//
// The operator's log and the honest user's lock are made once; the cases
// after them are parallel subtests, each with its own folders (and its own
// copy of the user's state where it changes it) and, where it checks that
// no request reached the log, its own server of the log and access log.
func TestSumdbEndToEnd(t *testing.T) {
	t.Parallel()
	honest := npmProject(t, false)
	// npx runs the installed copy, never one fetched afresh (the servers
	// get npm_config_offline through --env, so it is part of every key).
	run := func(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
		t.Helper()
		return mcpsum(t, dir, append([]string{"npm_config_offline=true"}, env...), args...)
	}
	offline := []string{"npm_config_offline=true"} // mcpsum-log add's servers run the installed copies too
	// lockBoth locks mem and seq in dir at once (two concurrent `mcpsum
	// lock` runs into one mcp.lock, which its file lock allows), and runs
	// extra alongside.
	lockBoth := func(t *testing.T, dir string, env []string, what string, extra ...func()) []string {
		t.Helper()
		var stderr [2]string
		concurrently(append(extra,
			func() {
				var code int
				if _, stderr[0], code = run(t, dir, env, "lock", "--name", "mem", "--env", "npm_config_offline", "--", "npx", "-y", memSpec); code != 0 {
					t.Errorf("%s lock mem: exit %d\n%s", what, code, stderr[0])
				}
			},
			func() {
				var code int
				if _, stderr[1], code = run(t, dir, env, "lock", "--name", "seq", "--env", "npm_config_offline", "--", "npx", "-y", seqSpec); code != 0 {
					t.Errorf("%s lock seq: exit %d\n%s", what, code, stderr[1])
				}
			})...)
		if t.Failed() {
			t.FailNow()
		}
		return stderr[:]
	}
	// The operator: a log of two surfaces, seen by an honest install (the
	// operator's lock of both, made once per run: operatorLock).
	// Alongside, the entry that forks the log below, into a lockfile of
	// its own.
	concurrently(func() {
		if _, se, code := run(t, honest, nil, "lock", "--lockfile", "fork.lock", "--name", "seq2", "--env", "MCPSUM_E2E_FORK", "--env", "npm_config_offline", "--", "npx", "-y", seqSpec); code != 0 {
			t.Errorf("lock seq2: exit %d\n%s", code, se)
		}
	})
	operatorLock(t, honest, "mcp.lock", false)
	if t.Failed() {
		t.FailNow()
	}
	logDir := filepath.Join(t.TempDir(), "log")
	vkey, se, code := mcpsumLog(t, honest, "init", "--dir", logDir, "--origin", "e2e.test/mcp")
	if code != 0 {
		t.Fatalf("mcpsum-log init: exit %d\n%s", code, se)
	}
	vkey = strings.TrimSpace(vkey)
	if fi, err := os.Stat(filepath.Join(logDir, "log.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("signing key: %v %v, want mode 0600", fi, err)
	}
	snapshot := filepath.Join(t.TempDir(), "log-at-1")
	so, se, code := mcpsumLogEnv(t, honest, offline, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--name", "mem")
	if code != 0 || !strings.Contains(so, "logged  mem npm/"+memSpec+"#") {
		t.Fatalf("mcpsum-log add mem: exit %d\n%s%s", code, so, se)
	}
	copyTree(t, logDir, snapshot) // the log as it was at one record
	// A fork: another copy of the one-record log grows with another second
	// record (at the same time as the log itself grows).
	fork := filepath.Join(t.TempDir(), "log-forked")
	copyTree(t, logDir, fork)
	concurrently(func() {
		if so, se, code := mcpsumLogEnv(t, honest, offline, "add", "--dir", logDir, "--lockfile", "mcp.lock"); code != 0 || !strings.Contains(so, "already mem") || !strings.Contains(so, "logged  seq") {
			t.Errorf("mcpsum-log add (again, plus seq): exit %d\n%s%s", code, so, se)
		}
	}, func() {
		if so, se, code := mcpsumLogEnv(t, honest, offline, "add", "--dir", fork, "--lockfile", "fork.lock", "--name", "seq2"); code != 0 {
			t.Errorf("add to the fork: exit %d\n%s%s", code, so, se)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	url, access := serveLog(t, logDir)
	db := "MCPSUMDB=" + vkey + " " + url

	// A user with the honest install: matches, proofs stored.
	user := npmProject(t, false)
	stateDir, cacheDir := t.TempDir(), t.TempDir()
	state, cache := "XDG_STATE_HOME="+stateDir, "XDG_CACHE_HOME="+cacheDir
	env := []string{db, state, cache}
	if se := lockBoth(t, user, env, "honest"); !strings.Contains(se[0], "mem: matches the transparency log") {
		t.Fatalf("honest lock of mem does not match the log:\n%s", se[0])
	}
	lock := readFile(t, filepath.Join(user, "mcp.lock"))
	if n := strings.Count(lock, `"logProof": "c2sp.org/tlog-proof@v1\nindex `); n != 2 {
		t.Fatalf("mcp.lock holds %d log proofs, want 2:\n%s", n, lock)
	}
	// The user's machine as it is now (its state and cache saved before any
	// case runs), for the cases that change it.
	savedState, savedCache := filepath.Join(t.TempDir(), "state"), filepath.Join(t.TempDir(), "cache")
	copyTree(t, stateDir, savedState)
	copyTree(t, cacheDir, savedCache)
	userCopy := func(t *testing.T) (dir, state, cache string) {
		dir = npmProject(t, false)
		must(t, os.WriteFile(filepath.Join(dir, "mcp.lock"), []byte(lock), 0o644))
		s, c := filepath.Join(t.TempDir(), "state"), filepath.Join(t.TempDir(), "cache")
		copyTree(t, savedState, s)
		copyTree(t, savedCache, c)
		return dir, "XDG_STATE_HOME=" + s, "XDG_CACHE_HOME=" + c
	}

	// show names keys; verify --offline checks the proofs with the network
	// unshared. The only case that uses this server of the log.
	t.Run("proofs offline", func(t *testing.T) {
		t.Parallel()
		so, _, _ := run(t, user, env, "show")
		if !strings.Contains(so, "log key       'npm/"+memSpec+"#") || !strings.Contains(so, "(proof stored)") {
			t.Errorf("show does not print the log key:\n%s", so)
		}
		offline := exec.Command("unshare", "-n", bin.mcpsum, "verify", "--offline")
		offline.Dir, offline.Env = user, append(os.Environ(), env...)
		before := readFile(t, access)
		out, err := offline.CombinedOutput()
		if err != nil && strings.Contains(string(out), "unshare") {
			t.Logf("unshare -n unavailable (%s): checking that no request reached the log instead", strings.TrimSpace(string(out)))
			offline = exec.Command(bin.mcpsum, "verify", "--offline")
			offline.Dir, offline.Env = user, append(os.Environ(), env...)
			out, err = offline.CombinedOutput()
		}
		if err != nil || !strings.Contains(string(out), "2 transparency-log proofs check against the log's key (offline)") {
			t.Fatalf("verify --offline: %v\n%s", err, out)
		}
		if readFile(t, access) != before {
			t.Errorf("verify --offline sent requests to the log:\n%s", strings.TrimPrefix(readFile(t, access), before))
		}
	})
	// Without MCPSUMDB the proofs cannot be checked, and verify says so.
	t.Run("proofs without MCPSUMDB", func(t *testing.T) {
		t.Parallel()
		if so, _, code := run(t, user, []string{state}, "verify", "--offline"); code != 0 || !strings.Contains(so, "2 stored transparency-log proofs not checked: MCPSUMDB") {
			t.Errorf("verify --offline without MCPSUMDB: exit %d\n%s", code, so)
		}
	})
	// A changed proof fails it.
	t.Run("changed proof", func(t *testing.T) {
		t.Parallel()
		bad := regexp.MustCompile(`(logProof": "c2sp.org/tlog-proof@v1\\nindex )(\d)`).ReplaceAllStringFunc(lock, func(m string) string {
			if strings.HasSuffix(m, "0") {
				return m[:len(m)-1] + "1"
			}
			return m[:len(m)-1] + "0"
		})
		must(t, os.WriteFile(filepath.Join(user, "bad.lock"), []byte(bad), 0o644))
		so, _, code := run(t, user, env, "verify", "--offline", "--lockfile", "bad.lock")
		if code != 1 || !strings.Contains(so, "SECURITY ERROR") || !strings.Contains(so, "transparency-log proof does not match") {
			t.Errorf("verify --offline of a changed proof: exit %d, want 1\n%s", code, so)
		}
	})

	// A tampered install: SECURITY ERROR with both digests, mcp.lock unchanged.
	victim := func(t *testing.T) (dir string, env []string) {
		dir = npmProject(t, true)
		must(t, os.WriteFile(filepath.Join(dir, "mcp.lock"), []byte(lock), 0o644))
		u, _ := serveLog(t, logDir)
		return dir, []string{"MCPSUMDB=" + vkey + " " + u, "XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}
	}
	t.Run("tampered install", func(t *testing.T) {
		t.Parallel()
		victim, vstate := victim(t)
		_, se, code := run(t, victim, vstate, "lock", "--name", "mem")
		if code != 1 || !strings.Contains(se, "SECURITY ERROR") || !regexp.MustCompile(`local:  sha256:[0-9a-f]{64}\n\s*logged: sha256:[0-9a-f]{64}`).MatchString(se) {
			t.Fatalf("tampered lock: exit %d, want 1 with both digests\n%s", code, se)
		}
		if got := readFile(t, filepath.Join(victim, "mcp.lock")); got != lock {
			t.Errorf("mcp.lock changed after the SECURITY ERROR")
		}
	})

	// import looks entries up the same way: the tampered install is refused
	// and no lockfile is written.
	t.Run("import of a tampered install", func(t *testing.T) {
		t.Parallel()
		victim, vstate := victim(t)
		cfgFile := filepath.Join(victim, "claude_desktop_config.json")
		must(t, os.WriteFile(cfgFile, []byte(`{"mcpServers": {"mem": {"command": "npx", "args": ["-y", "`+memSpec+`"], "env": {"npm_config_offline": "true"}}}}`), 0o644))
		cfgBefore := readFile(t, cfgFile)
		so, se, code := run(t, victim, vstate, "import", "--lockfile", "imported.lock", "--write", "--trust-project", cfgFile)
		if code != 1 || !strings.Contains(se, "SECURITY ERROR") {
			t.Errorf("import of the tampered install: exit %d, want 1\n%s%s", code, so, se)
		}
		if readFile(t, cfgFile) != cfgBefore {
			t.Error("import rewrote the client config after the SECURITY ERROR")
		}
		if _, err := os.Stat(filepath.Join(victim, "imported.lock")); !os.IsNotExist(err) {
			t.Errorf("import wrote a lockfile after the SECURITY ERROR: %v", err)
		}
	})

	// The operator refuses the tampered surface for a logged key: both
	// digests, exit 1, nothing appended.
	t.Run("operator refuses a tampered surface", func(t *testing.T) {
		t.Parallel()
		victim := npmProject(t, true)
		operatorLock(t, victim, "tampered.lock", true) // the tampered install's lock without a log
		cpBefore := readFile(t, filepath.Join(logDir, "tiles", "checkpoint"))
		so, se, code := mcpsumLogEnv(t, victim, offline, "add", "--dir", logDir, "--lockfile", "tampered.lock")
		if code != 1 || !regexp.MustCompile(`logged: sha256:[0-9a-f]{64}\n\s*now:    sha256:[0-9a-f]{64}`).MatchString(se) || !strings.Contains(se, "nothing was appended") {
			t.Errorf("mcpsum-log add of another surface for a logged key: exit %d, want 1 with both digests\n%s%s", code, so, se)
		}
		if readFile(t, filepath.Join(logDir, "tiles", "checkpoint")) != cpBefore {
			t.Error("the refused add changed the log's checkpoint")
		}
	})

	// An excluded key sends no request (its own server of the log, whose
	// access log no other case writes).
	t.Run("excluded key", func(t *testing.T) {
		t.Parallel()
		victim := npmProject(t, true)
		must(t, os.WriteFile(filepath.Join(victim, "mcp.lock"), []byte(lock), 0o644))
		u, access := serveLog(t, logDir)
		vstate := []string{"MCPSUMDB=" + vkey + " " + u, "XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}
		before := readFile(t, access)
		_, se, code := run(t, victim, append(vstate, "MCPSUM_NOSUMDB=npm/@modelcontextprotocol/server-memory"), "lock", "--name", "mem")
		if code != 0 || !strings.Contains(se, "matches MCPSUM_NOSUMDB; not looked up") {
			t.Errorf("excluded lock: exit %d\n%s", code, se)
		}
		if after := readFile(t, access); after != before {
			t.Errorf("an excluded key sent requests to the log:\n%s", strings.TrimPrefix(after, before))
		}
	})

	// An unreachable log fails the lock, unless the key is excluded (the
	// next step the message names, run here).
	t.Run("unreachable log", func(t *testing.T) {
		t.Parallel()
		victim := npmProject(t, true)
		must(t, os.WriteFile(filepath.Join(victim, "mcp.lock"), []byte(lock), 0o644))
		down := []string{"MCPSUMDB=" + vkey + " http://127.0.0.1:1", "XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}
		_, se, code := run(t, victim, down, "lock", "--name", "seq")
		if code != 3 || !strings.Contains(se, "cannot be reached") || !strings.Contains(se, "MCPSUM_NOSUMDB") {
			t.Errorf("unreachable log: exit %d, want 3\n%s", code, se)
		}
		if readFile(t, filepath.Join(victim, "mcp.lock")) != lock {
			t.Errorf("mcp.lock changed although the log could not be reached")
		}
		if _, se, code := run(t, victim, append(down, "MCPSUM_NOSUMDB=npm/@modelcontextprotocol/*"), "lock", "--name", "seq"); code != 0 {
			t.Errorf("unreachable log, key excluded: exit %d\n%s", code, se)
		}
	})

	// A stale copy, a rollback and a fork of the log, each seen from a copy
	// of the user's machine (its folder, state and cache as the honest lock
	// left them).
	signed := func(n int) string { return "\te2e.test/mcp\n\t" + strconv.Itoa(n) + "\n" }
	oldURL, _ := serveLog(t, snapshot)
	forkURL, _ := serveLog(t, fork)
	// A stale copy: the user saw two records; a mirror still serving the
	// checkpoint of one is the past (the tiles cached here prove it), not
	// an attack.
	t.Run("stale copy", func(t *testing.T) {
		t.Parallel()
		user, state, cache := userCopy(t)
		if _, se, code := run(t, user, []string{"MCPSUMDB=" + vkey + " " + oldURL, state, cache}, "lock", "--name", "mem"); code != 0 {
			t.Errorf("stale copy of the log: exit %d, want 0 (an older checkpoint on the timeline)\n%s", code, se)
		}
	})
	// Rollback: without those tiles, a log that no longer serves the tree
	// of two records it signed is caught, both signed checkpoints printed.
	t.Run("rollback", func(t *testing.T) {
		t.Parallel()
		user, state, _ := userCopy(t)
		_, se, code := run(t, user, []string{"MCPSUMDB=" + vkey + " " + oldURL, state, "XDG_CACHE_HOME=" + t.TempDir()}, "lock", "--name", "mem")
		if code != 1 || !strings.Contains(se, "SECURITY ERROR") || !strings.Contains(se, "rolled back") || !strings.Contains(se, "tree of 1 records") || !strings.Contains(se, "tree of 2 records") ||
			!strings.Contains(se, signed(1)) || !strings.Contains(se, signed(2)) {
			t.Errorf("rollback: exit %d, want 1 printing both checkpoints\n%s", code, se)
		}
	})
	// Fork: the one-record log grown with another second record.
	t.Run("fork", func(t *testing.T) {
		t.Parallel()
		user, state, cache := userCopy(t)
		_, se, code := run(t, user, []string{"MCPSUMDB=" + vkey + " " + forkURL, state, cache}, "lock", "--name", "mem")
		if code != 1 || !strings.Contains(se, "forked") || strings.Count(se, "tree of 2 records") != 2 || strings.Count(se, signed(2)) != 2 {
			t.Errorf("fork: exit %d, want 1 printing both checkpoints\n%s", code, se)
		}
	})
	// A fresh machine (a CI runner: no state, no cache) with the committed
	// lock catches the fork too: the checkpoints of the lock's proofs are
	// what the repository last saw.
	t.Run("fork seen by a fresh machine", func(t *testing.T) {
		t.Parallel()
		runner := npmProject(t, false)
		must(t, os.WriteFile(filepath.Join(runner, "mcp.lock"), []byte(lock), 0o644))
		fresh := []string{"MCPSUMDB=" + vkey + " " + forkURL, "XDG_STATE_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}
		_, se, code := run(t, runner, fresh, "lock", "--name", "mem")
		if code != 1 || !strings.Contains(se, "forked") || strings.Count(se, signed(2)) != 2 {
			t.Errorf("fresh machine, committed lock, forked log: exit %d, want 1\n%s", code, se)
		}
		if readFile(t, filepath.Join(runner, "mcp.lock")) != lock {
			t.Error("mcp.lock changed after the SECURITY ERROR")
		}
	})
}

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
	// --timeout-secs 90: each answer's bound (default 30 s), which the
	// first answer of a server started by npx, this test starting among the
	// package's first 8 on 2 loaded cores, exceeded once; the installs
	// stay outside the 2 s start allowance, and at most slots at once.
	stdout, stderr, code := mcpsum(t, dir, cold, "verify", "--start-timeout-secs", "2", "--timeout-secs", "90")
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
	stdout, stderr, code = mcpsum(t, dir, cold, "verify", "--name", "mem", "--start-timeout-secs", "2", "--timeout-secs", "90")
	if code != 0 || !strings.Contains(stderr+stdout, "removed npx's half-installed folder "+cut) {
		t.Fatalf("verify after an install was cut short: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
