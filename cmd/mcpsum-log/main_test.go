package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mcpsum-log says its version as mcpsum does; a mistyped command gets
// "did you mean" on a line of its own.
func TestVersionAndDidYouMean(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), []string{arg}, &stdout, &stderr); code != 0 ||
			!regexp.MustCompile(`^mcpsum-log \S+ \(go1\.\S+, \w+/\w+\)\n$`).MatchString(stdout.String()) {
			t.Errorf("mcpsum-log %s: exit %d, stdout %q, stderr %q", arg, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"serv"}, &stdout, &stderr); code != 2 ||
		!strings.HasPrefix(stderr.String(), "mcpsum-log: unknown command \"serv\"\nmcpsum-log: hint: did you mean 'mcpsum-log serve'?\n") {
		t.Errorf("mcpsum-log serv: exit %d\n%s", code, stderr.String())
	}
}

// A database password is never printed: not as a flag's default in the
// help, not in an error. On the command line, where every user of the
// machine can read it, it is refused; it comes from MCPSUM_LOG_MYSQL or a
// file.
func TestMySQLPasswordNeverPrinted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	run1 := func(args ...string) (string, int) {
		var out, errb strings.Builder
		code := run(context.Background(), args, &out, &errb)
		return out.String() + errb.String(), code
	}
	if out, code := run1("init", "--dir", dir, "--origin", "test.example/log"); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	const pw = "s3cret-pw"
	t.Setenv("MCPSUM_LOG_MYSQL", "mcpsum:"+pw+"@tcp(127.0.0.1:1)/log")
	for _, args := range [][]string{
		{"add", "-h"},
		{"serve", "--help"},
		{"serve", "--dir", dir, "--addr", "127.0.0.1:0"}, // the database cannot be reached
		{"add", "--dir", dir, "--bogus"},
	} {
		out, code := run1(args...)
		if strings.Contains(out, pw) || code == 0 {
			t.Errorf("%q: exit %d, output shows the password:\n%s", args, code, out)
		}
	}
	t.Setenv("MCPSUM_LOG_MYSQL", "")
	out, code := run1("serve", "--dir", dir, "--mysql", "mcpsum:"+pw+"@tcp(127.0.0.1:1)/log")
	if code != 2 || strings.Contains(out, pw) || !strings.Contains(out, "--mysql-file") {
		t.Errorf("--mysql with a password: exit %d, want 2 naming --mysql-file\n%s", code, out)
	}
	// From a file: read, used (the database cannot be reached), not printed.
	file := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(file, []byte("mcpsum:"+pw+"@tcp(127.0.0.1:1)/log\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = run1("serve", "--dir", dir, "--addr", "127.0.0.1:0", "--mysql-file", file)
	if code != 3 || strings.Contains(out, pw) || !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("--mysql-file: exit %d, want 3 (database unreachable) without the password\n%s", code, out)
	}
}
