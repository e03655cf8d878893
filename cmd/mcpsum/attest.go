package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// findAttest returns the helper beside this executable, else on PATH.
// Beside a release binary named mcpsum-linux-amd64 it also finds
// mcpsum-attest-linux-amd64 (the release names both that way).
func findAttest() (string, error) {
	exe, exeErr := os.Executable()
	if exeErr == nil {
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
		for _, n := range names {
			p := filepath.Join(filepath.Dir(exe), n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(attestproto.Command); err == nil {
		return p, nil
	}
	where := "on PATH"
	if exeErr == nil {
		where = "beside " + quoteArg(exe) + " nor on PATH"
	}
	return "", &exitError{code: exitUndecided, err: fmt.Errorf(
		"signing and signature checks need the %s helper (kept out of mcpsum so lock, verify and proxy start fast), but it is neither %s; install it beside mcpsum with %s",
		attestproto.Command, where, installHint())}
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
func callAttest(ctx context.Context, op string, data []byte, args ...string) (*attestproto.Response, error) {
	helper, err := findAttest()
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
