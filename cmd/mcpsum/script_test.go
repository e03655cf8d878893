package main

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/mcpsum/mcpsum/internal/attest"
	"github.com/mcpsum/mcpsum/internal/attest/attesttest"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// The CLI scripts in testdata/script run the real command tree and assert
// exact exit codes and output: `mcpsum` is this package built as the
// program it is (scriptBin), its signing helper `mcpsum-attest` this test
// binary re-executed under that name (testscript puts it on PATH; scriptBin
// links it beside mcpsum, where mcpsum looks for it).
func TestMain(m *testing.M) {
	testscript.Main(testbin.M(m), map[string]func(){
		"mcpsum-attest": func() {
			os.Exit(attest.Serve(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Getenv))
		},
	})
}

func TestScripts(t *testing.T) {
	// Signing fixtures and a running virtual Sigstore (offline, loopback).
	fix := t.TempDir()
	f := attesttest.WriteFixtures(t, fix, "fixture.lock", []byte("{}\n"))
	writePlainKey(t, f.Key, fix+"/plain.key")
	ss := attesttest.Start(t)
	if err := os.WriteFile(fix+"/virtual_root.json", ss.TrustedRootJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := scriptBin(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exits": exits, "replace": replace},
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			// Shared fixtures: the top-level testdata lockfiles.
			env.Setenv("LOCKS", mustAbs(t, "../../testdata/lockfiles"))
			env.Setenv("FIX", fix)
			env.Setenv("FULCIO", ss.FulcioURL)
			env.Setenv("REKOR", ss.RekorURL)
			env.Setenv("TSA", ss.TSAURL)
			env.Setenv("IDTOKEN", ss.IDToken(attesttest.Identity, attesttest.Issuer))
			return nil
		},
	})
}

// writePlainKey writes the key of the encrypted cosign.key at from
// unencrypted (PKCS#8 "PRIVATE KEY", a format sign accepts) to to: the
// steps whose subject is not the key's format sign with it, without the
// scrypt of cosign's encryption (~0.4 CPU-s a signing helper's start).
func writePlainKey(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := cryptoutils.UnmarshalPEMToPrivateKey(b, cryptoutils.StaticPasswordFunc([]byte(attesttest.Passphrase)))
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// scriptBin returns a folder holding mcpsum built from this package (one
// link, shared across runs through testbin's cache while the sources do not
// change) and, beside it, the signing helper. A script starts mcpsum ~200
// times: this test binary re-executed as mcpsum cost ~0.057 CPU-s a start
// (it also holds the virtual Sigstore's server packages, whose init runs
// at every start), the program alone ~0.030: ~5 CPU-s a run.
func scriptBin(t *testing.T) string {
	t.Helper()
	exe := testbin.Program(t, "mcpsum", "github.com/mcpsum/mcpsum/cmd/mcpsum")
	helper, err := exec.LookPath("mcpsum-attest") // testscript.Main's copy of this test binary
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(exe), "mcpsum-attest")
	if _, err := os.Lstat(beside); err != nil {
		if err := os.Symlink(helper, beside); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Dir(exe)
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd + "/" + p
}

// exits N CMD ARGS... runs CMD like exec and asserts its exact exit code.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARG]...")
	}
	var wants []int // "exits 0,3 ..." accepts either
	for _, c := range strings.Split(args[0], ",") {
		want, err := strconv.Atoi(c)
		if err != nil {
			ts.Fatalf("exits: bad code %q", args[0])
		}
		wants = append(wants, want)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if !slices.Contains(wants, got) {
		ts.Fatalf("%s exited %d, want %s", args[1], got, args[0])
	}
}

// replace FILE OLD NEW replaces the first OLD in FILE by NEW, failing if OLD
// is absent. An argument written go:"..." is a Go-quoted string ("\u202e").
func replace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	unq := func(s string) string {
		if q, ok := strings.CutPrefix(s, "go:"); ok {
			u, err := strconv.Unquote(q)
			ts.Check(err)
			return u
		}
		return s
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	old, repl := unq(args[1]), unq(args[2])
	if !strings.Contains(string(data), old) {
		ts.Fatalf("replace: %q not found in %s", old, args[0])
	}
	ts.Check(os.WriteFile(path, []byte(strings.Replace(string(data), old, repl, 1)), 0o644))
}
