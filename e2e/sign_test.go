package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// signingKeys writes an encrypted signing key and its public half into dir.
func signingKeys(t *testing.T, dir string) (key, pub string) {
	t.Helper()
	priv, pubPEM := attesttest.GenerateKeyPEM(t, []byte(attesttest.Passphrase))
	key, pub = filepath.Join(dir, "cosign.key"), filepath.Join(dir, "cosign.pub")
	if err := os.WriteFile(key, priv, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, pubPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return key, pub
}

// Signed means signed (issue 11): with --require-signature the proxy must run
// the entry of the very bytes whose signature verified. A writer swaps
// mcp.lock between a signed lock and an unsigned one whose entry runs
// evil.sh, as fast as it can, while proxies start; a proxy that read the
// file twice (once to verify, once to run) ran evil.sh in about a quarter
// of the starts. Every start must either refuse (it read the unsigned
// bytes) or serve the signed entry.
func TestProxyRequireSignatureReadsLockOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, pub := signingKeys(t, dir)
	lockProxysrv(t, dir)
	pass := []string{"MCPSUM_KEY_PASSWORD=" + attesttest.Passphrase}
	if _, errOut, code := mcpsum(t, dir, pass, "sign", "--key", key); code != 0 {
		t.Fatalf("sign: exit %d\n%s", code, errOut)
	}
	good, err := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	if err != nil {
		t.Fatal(err)
	}
	// The unsigned lock: the same entry name, a command that leaves a mark.
	marker := filepath.Join(dir, "evil-ran")
	evil := filepath.Join(dir, "evil.sh")
	script := "#!/bin/sh\ntouch '" + marker + "'\nexec '" + filepath.Join(dir, "proxysrv") + "'\n"
	if err := os.WriteFile(evil, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mustLock(t, dir, nil, "--lockfile", "evil.lock", "--name", "s", "--", "sh", evil)
	bad, err := os.ReadFile(filepath.Join(dir, "evil.lock"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(marker) // locking evil.lock ran it once

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the racing writer: whole files, swapped by rename
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			data, tmp := good, filepath.Join(dir, "g.tmp")
			if i%2 == 1 {
				data, tmp = bad, filepath.Join(dir, "b.tmp")
			}
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, filepath.Join(dir, "mcp.lock")); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()

	served, refused := 0, 0
	for start := 0; start < 30 && !t.Failed(); start++ {
		p := startRaw(t, proxyCmd(dir, "s", "--require-signature", "--key", pub))
		// A refusing proxy closes stdout without answering; a serving one
		// answers, and the call makes sure the server it started ran.
		if _, err := p.in.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")); err == nil {
			if l, _ := p.out.Next(); l != nil {
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
				if m := p.await("1"); m["result"] == nil {
					t.Errorf("start %d: the call failed: %s\nstderr:\n%s", start, m["error"], p.stderr)
				}
			}
		}
		code := p.wait()
		switch errOut := p.stderr.String(); {
		case code == 1 && strings.Contains(errOut, "refusing to start"):
			refused++
		case code == 0 && strings.Contains(errOut, "is signed by the given key"):
			served++
		default:
			t.Errorf("start %d: exit %d\nstderr:\n%s", start, code, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("start %d: the proxy verified the signed lock but ran the unsigned entry (evil.sh ran)\nstderr:\n%s", start, p.stderr)
		}
	}
	t.Logf("%d starts served the signed entry, %d refused the unsigned lock", served, refused)
	if served == 0 || refused == 0 {
		t.Errorf("the writer did not race the starts (served %d, refused %d)", served, refused)
	}
}

// Without the helper, signing commands fail closed (exit 3) and say how to
// install it; running that command (here from this module, into the
// directory beside mcpsum) makes them work.
func TestSignHelperMissingSaysHowToInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, pub := signingKeys(t, dir)
	lockProxysrv(t, dir)
	lone := t.TempDir()
	mc := filepath.Join(lone, "mcpsum")
	data, err := os.ReadFile(bin.mcpsum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mc, data, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := exec.Command(mc, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin", "MCPSUM_KEY_PASSWORD="+attesttest.Passphrase)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	const install = "'go install ./cmd/...' run in the mcpsum clone"
	for _, args := range [][]string{
		{"sign", "--key", key},
		{"verify", "--signature", "mcp.lock.sigstore.json", "--key", pub},
		{"proxy", "--name", "s", "--require-signature", "--key", pub},
	} {
		out, code := run(args...)
		if code != 3 || !strings.Contains(out, "need the mcpsum-attest helper") || !strings.Contains(out, install) {
			t.Errorf("mcpsum %s without the helper: exit %d, want 3 and %q:\n%s", strings.Join(args, " "), code, install, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp.lock.sigstore.json")); err == nil {
		t.Error("a bundle was written without the helper")
	}
	// A helper planted in the working folder (a cloned repository's
	// ./mcpsum-attest, a FAKE that says "verified" to anything) is never
	// run, even with "." on PATH and os/exec's dot check off.
	planted := filepath.Join(dir, "mcpsum-attest")
	if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch planted-ran; echo '{\"protocol\":1,\"exit\":0,\"signer\":{}}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mc, "verify", "--signature", "mcp.lock.sigstore.json", "--key", pub)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH=.:/usr/bin:/bin", "GODEBUG=execerrdot=0")
	if out, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 || !strings.Contains(string(out), "never takes it from PATH") {
		t.Errorf("verify with a planted ./mcpsum-attest: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "planted-ran")); err == nil {
		t.Error("the planted ./mcpsum-attest was run")
	}
	os.Remove(planted)
	// The other suggestion: name the helper by its absolute path.
	if out, code := run("sign", "--key", key, "--attest-helper", bin.attest); code != 0 {
		t.Fatalf("sign --attest-helper %s: exit %d\n%s", bin.attest, code, out)
	}
	os.Remove(filepath.Join(dir, "mcp.lock.sigstore.json"))
	// The suggested command, run as printed in this clone, and mcpsum as
	// it installs it, beside the helper in its GOBIN.
	gobin := installFolder(t)
	installed := time.Now().Truncate(time.Second)
	cmd = exec.Command("go", "install", "./cmd/...")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/...: %v\n%s", err, out)
	}
	for _, name := range cmdPrograms {
		// go install sets the time of a program it found up to date, as of
		// one it wrote: a program of an earlier run is not this one's.
		if fi, err := os.Stat(filepath.Join(gobin, name)); err != nil || fi.ModTime().Before(installed) {
			t.Fatalf("go install ./cmd/... did not install %s into its GOBIN: %v", name, err)
		}
	}
	mc = filepath.Join(gobin, "mcpsum")
	if out, err := exec.Command(filepath.Join(gobin, "mcpsum-attest"), "version").Output(); err != nil || !strings.HasPrefix(string(out), "mcpsum-attest ") {
		t.Errorf("mcpsum-attest version: %v %q", err, out)
	}
	if out, code := run("sign", "--key", key); code != 0 {
		t.Fatalf("sign after installing the helper: exit %d\n%s", code, out)
	}
	// The other suggestion, `go install github.com/mcpsum/mcpsum/cmd/...@V`,
	// names exactly the three binaries (the helper lands beside mcpsum).
	out, err := exec.Command("go", "list", "github.com/mcpsum/mcpsum/cmd/...").CombinedOutput()
	if err != nil || strings.Join(strings.Fields(string(out)), " ") != "github.com/mcpsum/mcpsum/cmd/mcpsum github.com/mcpsum/mcpsum/cmd/mcpsum-attest github.com/mcpsum/mcpsum/cmd/mcpsum-log" {
		t.Errorf("go list github.com/mcpsum/mcpsum/cmd/...: %v\n%s", err, out)
	}
	if out, code := run("verify", "--signature", "mcp.lock.sigstore.json", "--key", pub); code != 0 || !strings.Contains(out, "is signed by the given key") {
		t.Fatalf("verify --signature after installing the helper: exit %d\n%s", code, out)
	}
}

// Any changed byte of a signed lock is a bad signature (exit 1, as
// docs/signing.md says), also one that leaves the file no valid JSON: the
// bytes are checked against the signature before mcpsum gives up on
// parsing them.
func TestSignedLockChangedToBadJSONIsABadSignature(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, pub := signingKeys(t, dir)
	lockProxysrv(t, dir)
	pass := []string{"MCPSUM_KEY_PASSWORD=" + attesttest.Passphrase}
	lock := filepath.Join(dir, "mcp.lock")
	good, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"verify", "--signature", "mcp.lock.sigstore.json", "--key", pub},
		{"proxy", "--name", "s", "--require-signature", "--key", pub},
	} {
		os.WriteFile(lock, good, 0o644)
		if _, errOut, code := mcpsum(t, dir, pass, "sign", "--key", key); code != 0 {
			t.Fatalf("sign: exit %d\n%s", code, errOut)
		}
		os.WriteFile(lock, append(good, "{}\n"...), 0o644)
		if _, errOut, code := mcpsum(t, dir, nil, args...); code != 1 || !strings.Contains(errOut, "signature") {
			t.Errorf("mcpsum %s of a signed lock changed to bad JSON: exit %d, want 1 (a bad signature)\n%s", strings.Join(args, " "), code, errOut)
		}
	}
}

// cmdPrograms are the programs `go install ./cmd/...` installs.
var cmdPrograms = []string{"mcpsum", "mcpsum-attest", "mcpsum-log"}

// installFolder is the GOBIN of `go install ./cmd/...` in
// TestSignHelperMissingSaysHowToInstall and TestReadmeFirstCommands: a
// folder of this clone's in the tests' shared cache
// (testbin.SharedCacheEnv), held under a file lock until the test ends,
// where go install finds the programs of an earlier install of the same
// sources up to date and links nothing (three links into a fresh folder
// were ~7 CPU-seconds, twice a run); a fresh folder without that cache.
func installFolder(t *testing.T) string {
	t.Helper()
	shared := os.Getenv(testbin.SharedCacheEnv)
	root, err := filepath.Abs("..")
	if shared == "" || err != nil {
		return t.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	d := filepath.Join(shared, "mcpsum", "testbin", hex.EncodeToString(sum[:6])+"-gobin")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := testbin.LockFile(d + ".lock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	return d
}
