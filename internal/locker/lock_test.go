package locker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// fakeRun answers each job with the entry or error of its name.
func fakeRun(answers map[string]launch.Result) func(context.Context, []Job, launch.Options) *Outcome {
	return func(_ context.Context, jobs []Job, _ launch.Options) *Outcome {
		o := &Outcome{Entries: map[string]*lockfile.Server{}}
		for _, j := range jobs {
			r := answers[j.Name]
			o.Results = append(o.Results, r)
			if r.Err != nil {
				o.Failed = append(o.Failed, j.Name)
			} else {
				o.Entries[j.Name] = r.Entry
			}
		}
		return o
	}
}

// A re-lock writes the servers that locked and names those that did not;
// a review that refuses writes nothing.
func TestRelockSequence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	if err := Relock(context.Background(), path, "", launch.Options{}, Options{}, Hooks{}); !errors.As(err, new(*NoLockfileError)) {
		t.Fatalf("Relock without a lockfile: %v", err)
	}
	if _, err := Write(path, nil, map[string]*lockfile.Server{"a": entry(t, []string{"srv-a"}, "add:adds"), "b": entry(t, []string{"srv-b"}, "read:reads")}, Options{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	down := errors.New("down")
	var wrote []string
	h := Hooks{Run: fakeRun(map[string]launch.Result{"a": {Entry: entry(t, []string{"srv-a"}, "add:adds two numbers")}, "b": {Err: down}}),
		Wrote:  func(p string, e map[string]*lockfile.Server, _ *Written) { wrote = append(wrote, p) },
		Review: func(string, *lockfile.File, map[string]*lockfile.Server) error { return errors.New("refused") },
	}
	if err := Relock(context.Background(), path, "", launch.Options{}, Options{}, h); err == nil || err.Error() != "refused" || len(wrote) != 0 {
		t.Fatalf("refused review: %v, wrote %v", err, wrote)
	}
	if now, _ := os.ReadFile(path); string(now) != string(before) {
		t.Fatal("a refused review changed the lockfile")
	}
	h.Review = nil
	err := Relock(context.Background(), path, "", launch.Options{}, Options{}, h)
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Cause != down || failed.Summary != "lock failed for b (see above); their entries were left as they were; the others were re-locked" ||
		len(failed.Hints()) != 2 || !strings.Contains(failed.Hints()[1], "--remove b") || len(wrote) != 1 {
		t.Fatalf("one server down: %v, wrote %v", err, wrote)
	}
	if f, err := Load(path); err != nil || !strings.Contains(string(f.Servers["a"].Tools[0]), "adds two numbers") {
		t.Fatalf("the server that locked was not written: %v", err)
	}
}

// A new entry needs a valid name, and a failed lock leaves no lockfile.
func TestLockNewSequence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	target := &lockfile.Server{Command: []string{"srv"}}
	if err := LockNew(context.Background(), path, "", target, launch.Options{}, Options{}, Hooks{}); !errors.As(err, new(*UsageError)) {
		t.Fatalf("no name: %v", err)
	}
	down := errors.New("down")
	h := Hooks{Run: fakeRun(map[string]launch.Result{"n": {Err: down}})}
	err := LockNew(context.Background(), path, "n", target, launch.Options{}, Options{}, h)
	var failed *FailedError
	if !errors.As(err, &failed) || failed.Cause != down || failed.Summary != "lock failed for n; "+Untouched(path) {
		t.Fatalf("failed lock: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed lock wrote the lockfile: %v", err)
	}
}
