package attestproto

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A helper that is not the one this mcpsum expects is never trusted: an
// answer in another protocol version, or no answer at all, is exit 3 with
// the command that installs matching versions; a helper's verdict keeps its
// exit code.
func TestCallAttestRefusesAForeignHelper(t *testing.T) {
	for _, tt := range []struct {
		name, script string
		code         int
		want         string
	}{
		{"newer protocol", `echo '{"protocol":2,"exit":0}'`, ExitUndecided, "speaks protocol 2, this mcpsum speaks 1"},
		{"not JSON", `echo 'Usage: something else' >&2; exit 1`, ExitUndecided, "gave no protocol-1 answer"},
		{"verdict", `cat >/dev/null; echo '{"protocol":1,"exit":1,"error":"signature check failed: x"}'; exit 1`, ExitVerdict, "signature check failed: x"},
		{"ok but no signer", `cat >/dev/null; echo '{"protocol":1,"exit":0}'`, ExitUndecided, "answered verify without its result"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "mcpsum-attest"), []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			helper := filepath.Join(dir, "mcpsum-attest")
			lock := []byte("{\"lockfileVersion\":1,\"servers\":{}}\n")
			req := VerifyRequest{Bundle: filepath.Join(dir, "mcp.lock.sigstore.json"), Key: filepath.Join(dir, "k.pub")}
			_, err := Client{Helper: helper, Version: "devel"}.Verify(context.Background(), lock, req)
			if exitOf(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v (code %d), want code %d and %q", err, exitOf(err), tt.code, tt.want)
			}
			if tt.code == ExitUndecided && !strings.Contains(err.Error(), "go install ./cmd/...") {
				t.Errorf("no install command in %q", err)
			}
		})
	}
}

func TestPseudoVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.0.0-20261203073456-dada0e4fa134":       true,
		"v0.0.0-20261203073456-dada0e4fa134+dirty": true,
		"v1.2.4-0.20261203073456-dada0e4fa134":     true,
		"v1.2.3-pre.0.20261203073456-dada0e4fa134": true,
		"v1.2.3":      false,
		"v1.2.3-rc.1": false,
		"devel":       false,
	} {
		if got := pseudoVersion(v); got != want {
			t.Errorf("pseudoVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

// A helper that another user could have replaced is not run: the helper's
// answer decides whether a signature is good, so a world-writable helper
// (or a world-writable folder without the sticky bit holding it) would let
// anyone forge that verdict. The FAKE helper here answers "signed" for
// anything; it must never be asked.
func TestCallAttestRefusesAHelperOthersCanWrite(t *testing.T) {
	forged := `cat >/dev/null; echo '{"protocol":1,"exit":0,"signer":{"digest":"` + digestX + `"}}'`
	for _, tt := range []struct {
		name              string
		fileMode, dirMode os.FileMode
		want              string
	}{
		{"world-writable helper", 0o777, 0o755, "writable by every user"},
		{"world-writable folder", 0o755, 0o777, "writable by every user"},
		{"sticky world-writable folder", 0o755, 0o777 | os.ModeSticky, ""},
		{"link in a world-writable folder", 0o755, 0o755, "writable by every user"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bin")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			helper := filepath.Join(dir, "mcpsum-attest")
			if err := os.WriteFile(helper, []byte("#!/bin/sh\n"+forged+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			named := helper
			if strings.HasPrefix(tt.name, "link") {
				// the helper is fine; the folder holding the link named is not
				pathDir := filepath.Join(filepath.Dir(dir), "shared")
				named = filepath.Join(pathDir, "mcpsum-attest")
				if err := os.Mkdir(pathDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(helper, filepath.Join(pathDir, "mcpsum-attest")); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(pathDir, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(helper, tt.fileMode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tt.dirMode); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
			_, err := verifyX(named)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("a helper in a sticky folder was refused: %v", err)
				}
				return
			}
			if exitOf(err) != ExitUndecided || !strings.Contains(err.Error(), tt.want) || !strings.Contains(hint.Lines(err, ""), "\nhint: fix it: chmod o-w ") {
				t.Fatalf("got %v (code %d), want exit 3 saying %q with the chmod to run", err, exitOf(err), tt.want)
			}
			// The suggested command works: run it, and the helper is asked.
			_, cmdText, _ := strings.Cut(hint.Lines(err, ""), "\nhint: fix it: ")
			if out, err := exec.Command("sh", "-c", cmdText).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", cmdText, err, out)
			}
			if _, err := verifyX(named); err != nil {
				t.Fatalf("after %s: %v", cmdText, err)
			}
		})
	}
}

// digestX is the digest of the bytes "x".
const digestX = "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"

// writeForgedHelper writes a FAKE helper (hostile: no real helper answers
// like this) that says "verified" for anything, with the given digest, and
// leaves a mark when it runs.
func writeForgedHelper(t *testing.T, dir, digest string) (helper, mark string) {
	t.Helper()
	helper, mark = filepath.Join(dir, "mcpsum-attest"), filepath.Join(dir, "ran")
	script := "#!/bin/sh\ncat >/dev/null; touch '" + mark + "'; echo '{\"protocol\":1,\"exit\":0,\"signer\":{\"digest\":\"" + digest + "\"}}'\n"
	if err := os.WriteFile(helper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return helper, mark
}

// The helper is never taken from PATH: a planted ./mcpsum-attest in the
// folder mcpsum runs in, with "." on PATH (and GODEBUG=execerrdot=0, which
// lets os/exec run it), is not run; the error names the two ways to give
// the helper, and a relative --attest-helper is refused.
func TestAttestHelperNeverFromPath(t *testing.T) {
	if _, err := os.Stat(filepath.Join(filepath.Dir(os.Args[0]), "mcpsum-attest")); err == nil {
		t.Skip("a helper sits beside the test binary")
	}
	dir := t.TempDir()
	_, mark := writeForgedHelper(t, dir, digestX)
	t.Chdir(dir)
	t.Setenv("PATH", ".:"+dir+":/usr/bin:/bin")
	t.Setenv("GODEBUG", "execerrdot=0")
	_, err := verifyX("")
	if exitOf(err) != ExitUndecided || !strings.Contains(fmt.Sprint(err), "never takes it from PATH") || !strings.Contains(fmt.Sprint(err), "--attest-helper ABSOLUTE-PATH") {
		t.Fatalf("got %v (exit %d), want exit 3 naming beside-mcpsum and --attest-helper", err, exitOf(err))
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the helper planted in the working folder was run")
	}
	_, err = verifyX("mcpsum-attest")
	if exitOf(err) != ExitUsage || !strings.Contains(fmt.Sprint(err), "absolute path") {
		t.Fatalf("relative --attest-helper: %v (exit %d), want exit 2", err, exitOf(err))
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a relative --attest-helper was run")
	}
}

// A helper's "verified" is about the bytes mcpsum sent, or it is not taken:
// a FAKE helper answering with another digest is refused (exit 3); the
// same helper reporting the right digest is believed.
func TestAttestVerdictMustNameTheBytesSent(t *testing.T) {
	dir := t.TempDir()
	other := "sha256:" + strings.Repeat("0", 64)
	helper, _ := writeForgedHelper(t, dir, other)
	_, err := verifyX(helper)
	if exitOf(err) != ExitUndecided || !strings.Contains(fmt.Sprint(err), "verified digest") || !strings.Contains(fmt.Sprint(err), digestX) {
		t.Fatalf("helper reporting %s for x: %v (exit %d), want exit 3", other, err, exitOf(err))
	}
	helper, _ = writeForgedHelper(t, dir, digestX)
	if _, err := verifyX(helper); err != nil {
		t.Fatalf("helper reporting the right digest: %v", err)
	}
}

// verifyX asks helper (or, for "", the one beside the executable) to verify
// the bytes "x" against a key.
func verifyX(helper string) (*Signer, error) {
	return Client{Helper: helper, Version: "devel"}.Verify(context.Background(), []byte("x"), VerifyRequest{Bundle: "b.json", Key: "k.pub"})
}

// exitOf is the exit status mcpsum gives err (-1: not an *Error).
func exitOf(err error) int {
	var e *Error
	if !errors.As(err, &e) {
		return -1
	}
	return e.Exit
}
