package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcpsum/mcpsum/internal/attestproto"
)

// Signing lives in a helper binary, mcpsum-attest (see internal/attestproto):
// linking sigstore-go into mcpsum would cost every start of lock, verify,
// proxy and the sandbox stage ~10 ms and ~11 MiB.

// findAttest returns the helper named by --attest-helper (an absolute
// path), else the one beside this executable; never one from PATH: the
// helper decides whether a signature is good, and a PATH entry can be
// relative (a planted ./mcpsum-attest in a cloned repository). Beside a
// release binary named mcpsum-linux-amd64 it also finds
// mcpsum-attest-linux-amd64 (the release names both that way).
func findAttest(explicit string) (string, error) {
	if explicit != "" {
		if !filepath.IsAbs(explicit) {
			return "", usageErr("--attest-helper %s: give the helper's absolute path (a relative one depends on the folder mcpsum runs in)", quoteArg(explicit))
		}
		if st, err := os.Stat(explicit); err != nil || !st.Mode().IsRegular() {
			return "", &exitError{code: exitUndecided, err: fmt.Errorf("--attest-helper %s is not a file (%v); name the %s installed beside mcpsum", quoteArg(explicit), errOrKind(err, st), attestproto.Command)}
		}
		return explicit, nil
	}
	exe, exeErr := os.Executable()
	if exeErr == nil {
		for _, p := range besideCandidates(exe) {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) {
				return p, nil
			}
		}
	}
	where := "the folder of this mcpsum"
	if exeErr == nil {
		where = quoteArg(filepath.Dir(exe))
	}
	return "", &exitError{code: exitUndecided, err: fmt.Errorf(
		"signing and signature checks need the %s helper (kept out of mcpsum so lock, verify and proxy start fast), but it is not in %s (mcpsum never takes it from PATH); install it beside mcpsum with %s, or name it with --attest-helper ABSOLUTE-PATH",
		attestproto.Command, where, installHint())}
}

// besideCandidates are the helper's possible paths beside the executable exe.
func besideCandidates(exe string) []string {
	base := filepath.Base(exe)
	suffix, _ := strings.CutPrefix(base, "mcpsum")
	if suffix == base {
		suffix = ""
	}
	if runtime.GOOS == "windows" && !strings.HasSuffix(suffix, ".exe") {
		suffix += ".exe"
	}
	names := []string{attestproto.Command + suffix}
	if runtime.GOOS == "windows" {
		names = append(names, attestproto.Command+".exe")
	} else if suffix != "" {
		names = append(names, attestproto.Command)
	}
	for i, n := range names {
		names[i] = filepath.Join(filepath.Dir(exe), n)
	}
	return names
}

func errOrKind(err error, st os.FileInfo) string {
	if err != nil {
		return err.Error()
	}
	return "a " + st.Mode().Type().String() + " entry"
}

// attestHelperFlag registers --attest-helper on the commands that run the
// helper.
func attestHelperFlag(fs *flag.FlagSet) *string {
	return fs.String("attest-helper", "", "absolute path of the "+attestproto.Command+" signing helper (default: the one beside mcpsum; never taken from PATH)")
}

// pseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20261203073456-dada0e4fa134, possibly +dirty): what a build from a
// clone stamps, not a release anyone can go install.
func pseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 {
		return false
	}
	ts := v[i-14 : i]
	for _, c := range ts + v[i+1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return v[i-15] == '-' || v[i-15] == '.'
}

// installHint is the command that installs mcpsum and mcpsum-attest of this
// binary's version side by side: go install of the release for a release
// build; for a build from a clone (the module is not published, so @latest
// would fail), go install ./cmd/... in that clone.
func installHint() string {
	if v := moduleVersion(); strings.HasPrefix(v, "v") && !pseudoVersion(v) {
		return "'go install github.com/mcpsum/mcpsum/cmd/...@" + v + "' (both binaries)"
	}
	return "'go install ./cmd/...' run in the mcpsum clone this mcpsum was built from (both binaries, into the same folder)"
}

// callAttest runs the helper's op with args, giving it data (the exact
// lockfile bytes the caller read and will use) on stdin. A failed request
// comes back as an error carrying the helper's exit code.
func callAttest(ctx context.Context, helperPath, op string, data []byte, args ...string) (*attestproto.Response, error) {
	helper, err := findAttest(helperPath)
	if err != nil {
		return nil, err
	}
	if err := helperTrusted(helper); err != nil {
		return nil, &exitError{code: exitUndecided, err: fmt.Errorf("%s (%s) not run: %w", attestproto.Command, quoteArg(helper), err)}
	}
	argv := append([]string{op, "--protocol", fmt.Sprint(attestproto.Version)}, args...)
	cmd := exec.CommandContext(ctx, helper, argv...)
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var resp attestproto.Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil || resp.Protocol != attestproto.Version {
		why := fmt.Sprintf("gave no protocol-%d answer", attestproto.Version)
		if err == nil {
			why = fmt.Sprintf("speaks protocol %d, this mcpsum speaks %d", resp.Protocol, attestproto.Version)
		} else if runErr != nil {
			why += " (" + runErr.Error() + ")"
		}
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			why += ": " + oneLine(tail, 300)
		}
		return nil, foreignHelper(helper, why)
	}
	if resp.Exit == attestproto.ExitOK && (op == "verify" && resp.Signer == nil || op == "sign" && len(resp.Bundle) == 0) {
		return nil, foreignHelper(helper, "answered "+op+" without its result")
	}
	if resp.Exit == attestproto.ExitOK && op == "verify" {
		// The verdict must be about the bytes mcpsum sent.
		sum := sha256.Sum256(data)
		if want := "sha256:" + hex.EncodeToString(sum[:]); resp.Signer.Digest != want {
			return nil, foreignHelper(helper, fmt.Sprintf("verified digest %s, but the lockfile it was given has digest %s", quoteArg(oneLine(resp.Signer.Digest, 80)), want))
		}
	}
	if resp.Exit == attestproto.ExitOK && runErr != nil {
		return nil, &exitError{code: exitUndecided, err: fmt.Errorf("%s (%s): %v", attestproto.Command, quoteArg(helper), runErr)}
	}
	if resp.Exit != attestproto.ExitOK {
		code := resp.Exit
		if code != exitVerdict && code != exitUsage {
			code = exitUndecided
		}
		return &resp, &exitError{code: code, err: errors.New(resp.Error)}
	}
	return &resp, nil
}

// foreignHelper is the error for a helper that does not speak this mcpsum's
// protocol.
func foreignHelper(helper, why string) error {
	return &exitError{code: exitUndecided, err: fmt.Errorf("%s (%s) %s; install mcpsum and %s of the same version with %s",
		attestproto.Command, quoteArg(helper), why, attestproto.Command, installHint())}
}
