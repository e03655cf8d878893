package importer

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
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
		cfg, err := clientconfig.Parse(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"a": {"command": "srv-a"}, "b": {"url": "https://b.example/mcp"}}}`), c, clientconfig.Location{Base: clientconfig.Project})
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
	o.Run = func(context.Context, []locker.Job, launch.Options) *locker.Outcome {
		t.Fatal("a server ran before the user trusted the project")
		return nil
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
	down := errors.New("down")
	o.Run = func(_ context.Context, jobs []locker.Job, opts launch.Options) *locker.Outcome {
		if opts.Lockfile != lock || len(jobs) != 2 {
			t.Errorf("ran %d jobs into %q", len(jobs), opts.Lockfile)
		}
		return &locker.Outcome{Results: []launch.Result{{Err: down}, {Err: errors.New("also down")}}, Failed: []string{"a", "b"}}
	}
	err := Apply(context.Background(), plan(), o)
	var failed *locker.FailedError
	if !errors.As(err, &failed) || failed.Cause != down || failed.Summary != "import: could not lock a, b (see above); their entries in the client config were left as they are" || len(kinds) != 0 {
		t.Fatalf("failed locks: %v, events %v", err, kinds)
	}
}
