package locker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/testbin"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// gosrv is the path of e2e/servers/gosrv, a real go-sdk server, built once
// per test binary.
func gosrv(t *testing.T) string {
	return testbin.Program(t, "gosrv", "github.com/mcpsum/mcpsum/e2e/servers/gosrv")
}

// progressLog records what Run tells a Progress: the names it began with,
// each outcome, and the end (after every outcome).
type progressLog struct {
	mu    sync.Mutex
	began [][]string
	done  map[string]error
	ended int
	early bool // an outcome came after the end
}

func (p *progressLog) progress(names []string) (func(string, *lockfile.Server, error), func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.began = append(p.began, names)
	if p.done == nil {
		p.done = map[string]error{}
	}
	return func(name string, e *lockfile.Server, err error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if (e == nil) == (err == nil) {
				p.early = true
			}
			p.done[name] = err
		}, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.ended++
		}
}

// A re-lock runs the locks itself (the real server a, a command b that is
// not there), tells the progress of each, writes the servers that locked
// and names those that did not; a review that refuses writes nothing.
func TestRelockSequence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	if err := Relock(context.Background(), path, "", launch.Options{}, Options{}, Hooks{}); !errors.As(err, new(*NoLockfileError)) {
		t.Fatalf("Relock without a lockfile: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "srv-b")
	if _, err := Write(path, nil, map[string]*lockfile.Server{"a": entry(t, []string{gosrv(t), "-versions", "2026-07-28"}, "add:adds"), "b": entry(t, []string{missing}, "read:reads")}, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	var wrote []string
	log := &progressLog{}
	opts := launch.Options{Timeout: 30 * time.Second}
	h := Hooks{Progress: log.progress,
		Wrote:  func(p string, e map[string]*lockfile.Server, _ *Written) { wrote = append(wrote, p) },
		Review: func(string, *lockfile.File, map[string]*lockfile.Server) error { return errors.New("refused") },
	}
	if err := Relock(context.Background(), path, "", opts, Options{}, h); err == nil || err.Error() != "refused" || len(wrote) != 0 {
		t.Fatalf("refused review: %v, wrote %v", err, wrote)
	}
	if now, _ := os.ReadFile(path); string(now) != string(before) {
		t.Fatal("a refused review changed the lockfile")
	}
	h.Review = nil
	err := Relock(context.Background(), path, "", opts, Options{}, h)
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Cause == nil || !strings.Contains(failed.Cause.Error(), "srv-b") ||
		failed.Summary != "lock failed for b (see above); their entries were left as they were; the others were re-locked" ||
		len(failed.Hints()) != 2 || !strings.Contains(failed.Hints()[1], "--remove b") || len(wrote) != 1 {
		t.Fatalf("one server down: %v, wrote %v", err, wrote)
	}
	if f, err := Load(path); err != nil || !strings.Contains(string(f.Servers["a"].Tools[0]), "add two ints") || !strings.Contains(string(f.Servers["b"].Tools[0]), "reads") {
		t.Fatalf("the server that locked was not written, or the one that failed was changed: %v", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.began) != 2 || !slices.Equal(log.began[1], []string{"a", "b"}) || log.ended != 2 || log.early || log.done["a"] != nil || log.done["b"] == nil {
		t.Fatalf("progress: began %v, ended %d, outcomes %v", log.began, log.ended, log.done)
	}
}

// A new entry needs a valid name; the lock runs in the library (a real
// server, no hook needed) and is written; a failed lock leaves no
// lockfile.
func TestLockNewSequence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	target := &lockfile.Server{Command: []string{gosrv(t)}}
	if err := LockNew(context.Background(), path, "", target, launch.Options{}, Options{}, Hooks{}); !errors.As(err, new(*UsageError)) {
		t.Fatalf("no name: %v", err)
	}
	missing := &lockfile.Server{Command: []string{filepath.Join(t.TempDir(), "srv")}}
	err := LockNew(context.Background(), path, "n", missing, launch.Options{}, Options{}, Hooks{})
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Cause == nil || failed.Summary != "lock failed for n; "+Untouched(path) {
		t.Fatalf("failed lock: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed lock wrote the lockfile: %v", err)
	}
	var wrote int
	log := &progressLog{}
	h := Hooks{Progress: log.progress, Wrote: func(string, map[string]*lockfile.Server, *Written) { wrote++ }}
	if err := LockNew(context.Background(), path, "n", target, launch.Options{Timeout: 30 * time.Second}, Options{}, h); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || f.Servers["n"] == nil || len(f.Servers["n"].Tools) == 0 || wrote != 1 {
		t.Fatalf("the new entry: %v, wrote %d", err, wrote)
	}
	if len(log.began) != 1 || !slices.Equal(log.began[0], []string{"n"}) || log.ended != 1 || log.done["n"] != nil {
		t.Fatalf("progress: %+v", log)
	}
}

// A re-lock of a lockfile git left with conflict markers resolves it even
// though lock always reviews what it takes in (Hooks.Review): here the two
// sides differ in the generator only, so every entry is kept and the file
// is written whole. lock --accept (Hooks.Accepting) refuses the conflict
// instead and writes nothing.
func TestRelockResolvesAConflictUnlessAccepting(t *testing.T) {
	data, err := os.ReadFile("../../testdata/lockfiles/valid.lock")
	if err != nil {
		t.Fatal(err)
	}
	conflicted := strings.Replace(string(data), "\n  \"generator\"", "\n<<<<<<< HEAD\n  \"generator\"", 1)
	conflicted = strings.Replace(conflicted, "\n  \"servers\"", "\n=======\n  \"generator\": \"mcpsum 0.2.0\",\n>>>>>>> f\n  \"servers\"", 1)
	path := filepath.Join(t.TempDir(), "mcp.lock")
	if err := os.WriteFile(path, []byte(conflicted), 0o644); err != nil {
		t.Fatal(err)
	}
	h := Hooks{Review: func(string, *lockfile.File, map[string]*lockfile.Server) error { return nil },
		Note: func(string) {}, Wrote: func(string, map[string]*lockfile.Server, *Written) {}, Accepting: true}
	err = Relock(context.Background(), path, "", launch.Options{Lockfile: path}, Options{Generator: "test"}, h)
	if got, _ := os.ReadFile(path); !errors.Is(err, lockfile.ErrMergeConflict) || string(got) != conflicted {
		t.Fatalf("lock --accept of a conflicted lockfile: %v (file changed: %v)", err, string(got) != conflicted)
	}
	h.Accepting = false
	if err := Relock(context.Background(), path, "", launch.Options{Lockfile: path}, Options{Generator: "test"}, h); err != nil {
		t.Fatalf("lock of a conflicted lockfile: %v", err)
	}
	f, err := lockfile.Load(path)
	if err != nil || len(f.Servers) == 0 {
		t.Fatalf("the resolved lockfile: %v", err)
	}
}
