package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Apply's sequence without a server: the dry run shows each rewrite and
// names the lock; --write asks before a project config's commands run and
// stops when refused; locks that all fail write nothing and name the
// servers, the first failure deciding.
func TestApplySequence(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "mcp.lock")
	plan := func() []*Group {
		c, _ := clientconfig.Lookup("claude-code")
		cfg, err := clientconfig.Parse(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"a": {"command": "srv-a"}, "b": {"url": "http://127.0.0.1:1/mcp"}}}`), c, clientconfig.Location{Base: clientconfig.Project})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Shared = true
		groups, err := Plan(context.Background(), []*clientconfig.Config{cfg}, Options{Dirs: clientconfig.Dirs{Project: dir}, Lockfile: lock, Self: "/bin/mcpsum"})
		if err != nil || Count(groups) != 2 {
			t.Fatalf("plan: %d candidates, %v", Count(groups), err)
		}
		return groups
	}
	var kinds []EventKind
	var dry []string
	o := ApplyOptions{Self: "/bin/mcpsum", Event: func(e Event) {
		kinds = append(kinds, e.Kind)
		dry = append(dry, e.Locks...)
	}}
	if err := Apply(context.Background(), plan(), o); err != nil || len(kinds) != 2 || kinds[0] != Rewriting || kinds[1] != DryRun || len(dry) != 1 || dry[0] != lock {
		t.Fatalf("dry run: %v, events %v, locks %v", err, kinds, dry)
	}

	o.Write = true
	refused := errors.New("not trusted")
	o.Ask = func(lines, files []string) error {
		if len(lines) != 2 || len(files) != 1 {
			t.Errorf("asked about %q in %q", lines, files)
		}
		return refused
	}
	o.Progress = func([]string) (func(string, *lockfile.Server, error), func()) {
		t.Fatal("a server ran before the user trusted the project")
		return nil, nil
	}
	if err := Apply(context.Background(), plan(), o); err != refused {
		t.Fatalf("refused trust: %v", err)
	}

	// Nobody to ask and no trust given: refused, nothing runs (fail closed).
	o.Ask = nil
	var ut *UntrustedProjectError
	if err := Apply(context.Background(), plan(), o); !errors.As(err, &ut) || len(ut.Files) != 1 || ut.Commands != 2 {
		t.Fatalf("no Ask, no trust: %v", err)
	}

	o.TrustProject, kinds = true, nil
	var ran []string
	var outcomes []error
	o.Progress = func(names []string) (func(string, *lockfile.Server, error), func()) {
		ran = names
		var mu sync.Mutex
		return func(_ string, _ *lockfile.Server, err error) {
			mu.Lock()
			outcomes = append(outcomes, err)
			mu.Unlock()
		}, func() {}
	}
	// neither server is there (no srv-a on PATH, nothing listens on port 1):
	// Apply runs both locks itself, and both fail
	t.Setenv("PATH", dir)
	err := Apply(context.Background(), plan(), o)
	var failed *locker.FailedError
	if !errors.As(err, &failed) || failed.Cause == nil || !strings.Contains(failed.Cause.Error(), "srv-a") || failed.Summary != "import: could not lock a, b (see above); their entries in the client config were left as they are" || len(kinds) != 0 {
		t.Fatalf("failed locks: %v, events %v", err, kinds)
	}
	if !slices.Equal(ran, []string{"a", "b"}) || len(outcomes) != 2 || outcomes[0] == nil || outcomes[1] == nil {
		t.Fatalf("progress: ran %v, outcomes %v", ran, outcomes)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("failed locks wrote %s: %v", lock, err)
	}
}
