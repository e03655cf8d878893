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
