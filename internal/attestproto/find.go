package attestproto

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Find returns the helper to run: explicit (--attest-helper, an absolute
// path) when given, else the one beside the running executable; never one
// from PATH: the helper decides whether a signature is good, and a PATH
// entry can be relative (a planted ./mcpsum-attest in a cloned
// repository). Beside a release binary named mcpsum-linux-amd64 it also
// finds mcpsum-attest-linux-amd64 (the release names both that way).
// version is the running mcpsum's, for the install command of the error.
func Find(explicit, version string) (string, error) {
	if explicit != "" {
		if !filepath.IsAbs(explicit) {
			return "", &Error{Exit: ExitUsage, Err: fmt.Errorf("--attest-helper %s: give the helper's absolute path (a relative one depends on the folder mcpsum runs in)", quoteArg(explicit))}
		}
		if st, err := os.Stat(explicit); err != nil || !st.Mode().IsRegular() {
			return "", undecided("--attest-helper %s is not a file (%v); name the %s installed beside mcpsum", quoteArg(explicit), errOrKind(err, st), Command)
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
	return "", undecided("signing and signature checks need the %s helper (kept out of mcpsum so lock, verify and proxy start fast), but it is not in %s (mcpsum never takes it from PATH); install it beside mcpsum with %s, or name it with --attest-helper ABSOLUTE-PATH",
		Command, where, InstallHint(version))
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
	names := []string{Command + suffix}
	if runtime.GOOS == "windows" {
		names = append(names, Command+".exe")
	} else if suffix != "" {
		names = append(names, Command)
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

// InstallHint is the command that installs mcpsum and mcpsum-attest of
// version side by side: go install of the release for a release build; for
// a build from a clone (the module is not published, so @latest would
// fail), go install ./cmd/... in that clone.
func InstallHint(version string) string {
	if strings.HasPrefix(version, "v") && !pseudoVersion(version) {
		return "'go install github.com/mcpsum/mcpsum/cmd/...@" + version + "' (both binaries)"
	}
	return "'go install ./cmd/...' run in the mcpsum clone this mcpsum was built from (both binaries, into the same folder)"
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
