package locker

import (
	"context"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Outcome is what Run got from several servers.
type Outcome struct {
	Results []launch.Result             // one per job, in job order
	Entries map[string]*lockfile.Server // the servers that locked
	Failed  []string                    // those that did not, in job order
}

// FirstErr is the error of the first server that failed (nil if none).
func (o *Outcome) FirstErr() error {
	for _, r := range o.Results {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// Progress starts the report of a run of locks, given the servers' names
// in order before the first starts: done hears each server's outcome as it
// ends (from several goroutines, once per server), end is called once
// after the last. The command renders it (a line per server); a library
// only calls it.
type Progress func(names []string) (done func(name string, e *lockfile.Server, err error), end func())

// Run locks every job in parallel (launch.Each), telling progress (nil:
// nothing). One server that fails does not hold back the others.
func Run(ctx context.Context, jobs []Job, opts launch.Options, progress Progress) *Outcome {
	names := make([]string, len(jobs))
	byName := make(map[string]Job, len(jobs))
	for i, j := range jobs {
		names[i] = j.Name
		if _, ok := byName[j.Name]; !ok {
			byName[j.Name] = j
		}
	}
	var done func(string, *lockfile.Server, error)
	if progress != nil {
		var end func()
		done, end = progress(names)
		defer end()
	}
	o := &Outcome{Entries: map[string]*lockfile.Server{}}
	o.Results = launch.Each(ctx, names, func(ctx context.Context, n string) (*lockfile.Server, error) {
		j := byName[n]
		e, err := launch.LockTarget(ctx, n, j.Target, j.Prefer, opts)
		if done != nil {
			done(n, e, err)
		}
		return e, err
	})
	for i, r := range o.Results {
		if r.Err != nil {
			o.Failed = append(o.Failed, names[i])
			continue
		}
		o.Entries[names[i]] = r.Entry
	}
	return o
}

// FailedError sums up locks that failed, each already reported on its own
// (a progress line): Summary is the message, and Cause, the first server's
// error, decides the exit code.
type FailedError struct {
	Summary string
	Cause   error
	Next    []string // what to do next, for a person (Hints)
}

func (e *FailedError) Error() string { return e.Summary }

// Hints are the next steps (the failures' own hints were shown with them).
func (e *FailedError) Hints() []string { return e.Next }
