package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/sumlog"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
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

// A folder that holds no log gets the init that makes one as a hint on a
// line of its own; running it (with an origin for ORIGIN) makes the folder
// one that serve serves.
func TestNotALogFolderHint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "log")
	var stdout, stderr strings.Builder
	code := run(context.Background(), []string{"serve", "--dir", dir, "--addr", "127.0.0.1:0"}, &stdout, &stderr)
	const prefix = "\nmcpsum-log: hint: make one first: "
	_, next, ok := strings.Cut(stderr.String(), prefix)
	if code != 3 || !strings.HasPrefix(stderr.String(), "mcpsum-log serve: "+dir+" is not a log folder (no ") || !ok {
		t.Fatalf("serve of a folder with no log: exit %d, want 3 and the init as a hint\n%s", code, stderr.String())
	}
	argv := strings.Fields(strings.TrimSpace(next))
	if len(argv) != 6 || argv[0] != "mcpsum-log" || argv[5] != "ORIGIN" {
		t.Fatalf("hint %q: want mcpsum-log init --dir D --origin ORIGIN", next)
	}
	argv[5] = "test.example/log"
	stderr.Reset()
	if code := run(context.Background(), argv[1:], &stdout, &stderr); code != 0 {
		t.Fatalf("the hint, %q: exit %d\n%s", argv, code, stderr.String())
	}
	// serve now opens the log; a cancelled context stops it at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stderr.Reset()
	if code := run(ctx, []string{"serve", "--dir", dir, "--addr", "127.0.0.1:0"}, &stdout, &stderr); code != 0 {
		t.Fatalf("serve after the hint: exit %d\n%s", code, stderr.String())
	}
}

// A --storage other than where the log lives gets the migrate that moves
// it there as a hint; running it moves the log, and the same serve then
// works.
func TestOtherStorageHint(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "log")
	if _, err := sumlog.Init(dir, "test.example/log"); err != nil {
		t.Fatal(err)
	}
	if _, err := sumlog.Add(ctx, dir, sumlog.Options{}, []sumlog.Entry{{Key: "npm/m@1.0.0#" + strings.Repeat("0", 24),
		Surface: sumdb.Surface{Era: "legacy", Items: [4]map[string]string{{"t": "sha256:" + strings.Repeat("d", 64)}, {}, {}, {}}}}}); err != nil {
		t.Fatal(err)
	}
	serve := []string{"serve", "--dir", dir, "--storage", "posix:" + filepath.Join(base, "other"), "--addr", "127.0.0.1:0"}
	var stdout, stderr strings.Builder
	code := run(ctx, serve, &stdout, &stderr)
	_, next, ok := strings.Cut(stderr.String(), "\nmcpsum-log: hint: to move it there: ")
	if code != 3 || !ok {
		t.Fatalf("serve of another storage: exit %d, want 3 and the migrate as a hint\n%s", code, stderr.String())
	}
	argv := strings.Fields(strings.TrimSpace(next))
	if len(argv) < 2 || argv[0] != "mcpsum-log" || argv[1] != "migrate" {
		t.Fatalf("hint %q: want mcpsum-log migrate …", next)
	}
	stderr.Reset()
	if code := run(ctx, argv[1:], &stdout, &stderr); code != 0 {
		t.Fatalf("the hint, %q: exit %d\n%s", argv, code, stderr.String())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	stderr.Reset()
	if code := run(cctx, serve, &stdout, &stderr); code != 0 {
		t.Fatalf("serve after the hint: exit %d\n%s", code, stderr.String())
	}
}

// Every command's -h says what it does, lists its flags as --name ARG,
// ends with examples that use only those flags, exits 0, and keeps every
// line within cli.Width columns, as mcpsum's help does.
func TestHelp(t *testing.T) {
	var top strings.Builder
	if code := run(context.Background(), []string{"-h"}, &top, &top); code != 0 {
		t.Fatalf("mcpsum-log -h: exit %d", code)
	}
	lines := strings.Split(top.String(), "\n")
	for _, c := range subcommands {
		var out strings.Builder
		if code := run(context.Background(), []string{c.name, "-h"}, &out, &out); code != 0 {
			t.Errorf("mcpsum-log %s -h: exit %d\n%s", c.name, code, out.String())
		}
		help := out.String()
		_, ex, ok := strings.Cut(help, "\nExamples:\n")
		if !ok || !strings.Contains(help, "\nUsage:\n  mcpsum-log "+c.name+" ") {
			t.Errorf("mcpsum-log %s -h: no usage line or no examples\n%s", c.name, help)
		}
		ex, _, _ = strings.Cut(ex, "\n\n")
		for _, e := range strings.Split(strings.TrimSpace(ex), "\n") {
			e = strings.TrimSpace(e)
			if !strings.HasPrefix(e, "mcpsum-log "+c.name+" ") {
				t.Errorf("mcpsum-log %s: example %q runs another command", c.name, e)
			}
			for _, w := range strings.Fields(e) {
				if strings.HasPrefix(w, "--") && !strings.Contains(help, "\n  "+w+" ") {
					t.Errorf("mcpsum-log %s: example %q uses %s, which its help does not list", c.name, e, w)
				}
			}
		}
		lines = append(lines, strings.Split(help, "\n")...)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > cli.Width {
			t.Errorf("a help line of %d columns (at most %d):\n%s", n, cli.Width, l)
		}
	}
}
