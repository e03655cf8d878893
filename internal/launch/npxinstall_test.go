package launch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// The install's log lives in the state folder and is rewritten on every
// install: a symbolic link planted at its path (to make mcpsum truncate
// and fill another of the user's files) is refused before anything runs,
// and the link's target is left as it was.
func TestInstallLogRefusesSymlink(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	run := parseNpx([]string{"npx", "-y", "is-number@7.0.0"})
	logDir := filepath.Join(state, "mcpsum", "install")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(logDir, filepath.Base(run.folder("/"))+".log")
	if err := os.Symlink(victim, logPath); err != nil {
		t.Fatal(err)
	}
	// "true" stands in for npx: it ignores npx's arguments and succeeds.
	entry := &lockfile.Server{Command: []string{"true", "-y", "is-number@7.0.0"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := runInstall(ctx, "s", entry, run, os.Environ(), t.TempDir(), time.Minute)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), logPath) {
		t.Errorf("runInstall with a link at its log's path: %v, want a refusal naming the link %s", err, logPath)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, _ := os.Lstat(logPath); fi == nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", fi)
	}
}

// lock's line about an npx entry says which environment its install sees:
// the names (never values) of the server's variables and the caller's
// npm/proxy/CA ones, the package escaped; other entries get no line.
func TestInstallSees(t *testing.T) {
	t.Setenv("npm_config_registry", "http://registry.invalid/value-not-shown")
	t.Setenv("PUPPETEER_SKIP_DOWNLOAD", "1")
	t.Setenv("MY_KEY", "value-not-shown")
	e := &lockfile.Server{Command: []string{"npx", "-y", "pkg@1.0.0\x1b[2J"}, EnvPassthrough: []string{"MY_KEY"}}
	l := InstallSees(e)
	for _, want := range []string{`npx installs $'pkg@1.0.0\u001b[2J' before`, "MY_KEY", "npm_config_registry", "lock with --env"} {
		if !strings.Contains(l, want) {
			t.Errorf("line %q lacks %q", l, want)
		}
	}
	_, here, _ := strings.Cut(l, "(here: ")
	here, _, _ = strings.Cut(here, ")")
	if strings.Contains(l, "value-not-shown") || strings.Contains(l, "\x1b") || strings.Contains(here, "PUPPETEER") {
		t.Errorf("line %q shows a value, a raw escape, or a variable the install does not see", l)
	}
	sandboxed := *e
	sandboxed.Policy = &lockfile.Policy{Sandbox: &lockfile.Sandbox{}}
	for _, o := range []*lockfile.Server{{Command: []string{"node", "x.js"}}, {Command: []string{"npx", "./local"}}, &sandboxed} {
		if l := InstallSees(o); l != "" {
			t.Errorf("%v: %q, want no line (mcpsum installs nothing before it starts)", o.Command, l)
		}
	}
}
