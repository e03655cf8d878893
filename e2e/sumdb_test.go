package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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

// mcpsum-log add starts each server as mcpsum verify does: one slow to
// write its first line (a first npx run, played by a FAKE npx on PATH that
// waits 3 s and then runs the go-sdk memory server) gets the start-up
// allowance (--start-timeout-secs, 60 s by default), not just the per-answer
// --timeout-secs. Before, add had no start allowance, so a server that took
// longer than 30 s to start on a loaded machine failed the add.
func TestLogAddStartAllowance(t *testing.T) {
	t.Parallel()
	dir, fakes := t.TempDir(), t.TempDir()
	// "--yes …" is mcpsum's install of the package (installing is not starting).
	must(t, os.WriteFile(filepath.Join(fakes, "npx"), []byte("#!/bin/sh\n# FAKE npx\n[ \"$1\" = --yes ] && exit 0\nsleep 3\nexec "+bin.goMemory+"\n"), 0o755))
	env := []string{"PATH=" + fakes + string(os.PathListSeparator) + os.Getenv("PATH"), "MCPSUMDB=off"}
	if _, se, code := mcpsum(t, dir, env, "lock", "--name", "mem", "--", "npx", "-y", memSpec); code != 0 {
		t.Fatalf("lock: exit %d\n%s", code, se)
	}
	logDir := filepath.Join(t.TempDir(), "log")
	if _, se, code := mcpsumLogEnv(t, dir, env, "init", "--dir", logDir, "--origin", "e2e.test/start"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, se)
	}
	if _, se, code := mcpsumLogEnv(t, dir, env, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--timeout-secs", "1", "--start-timeout-secs", "1"); code != 3 || !strings.Contains(se, "start-up allowance 1s") {
		t.Errorf("add with a 1 s start allowance of a server that needs 3 s: exit %d, want 3 naming the allowance\n%s", code, se)
	}
	if so, se, code := mcpsumLogEnv(t, dir, env, "add", "--dir", logDir, "--lockfile", "mcp.lock", "--timeout-secs", "1"); code != 0 || !strings.Contains(so+se, "mem") {
		t.Errorf("add of a server that needs 3 s to start, 1 s per answer: exit %d, want 0\n%s%s", code, so, se)
	}
}
