package importer

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// ApplyOptions say how Apply carries out a plan and how it reaches the
// user: the command supplies the hooks and renders the events.
type ApplyOptions struct {
	Self  string // this mcpsum's absolute path (Options.Self)
	Write bool   // lock and rewrite; otherwise show the rewrites only
	// Serve, when set, is mcpsum serve's base URL (ServeBase): the
	// rewritten entries point at it instead of running mcpsum proxy.
	Serve string
	// Pin is how each server is locked; Apply sets Lockfile per group.
	Pin    launch.Options
	Locker locker.Options
	// Ask is asked before any command of a project config runs (Shared);
	// an error stops Apply before anything is started. Without Ask (and
	// without TrustProject) Apply refuses to run them: a cloned
	// repository's commands never start unasked.
	Ask func(lines, files []string) error
	// TrustProject runs the commands of project configs without asking
	// (import --trust-project).
	TrustProject bool
	// Progress hears the locks as they run (nil: nothing).
	Progress locker.Progress
	// CheckLog looks the entries up in the transparency log before they
	// are written into seen (the lockfile as read, nil when there is none;
	// nil CheckLog: no log).
	CheckLog func(ctx context.Context, seen *lockfile.File, entries map[string]*lockfile.Server) error
	// Review, when set, sees the entries about to be written over entries
	// of the same name in the lock f (a server imported again), to say
	// what the lock takes in; an error writes nothing.
	Review func(path string, f *lockfile.File, entries map[string]*lockfile.Server) error
	// Event hears what Apply does, in order.
	Event func(Event)
	Now   func() time.Time
}

// UntrustedProjectError: Apply was to start commands of project configs
// with nobody to ask and no TrustProject; nothing was started or written.
type UntrustedProjectError struct {
	Files    []string
	Commands int
}

func (e *UntrustedProjectError) Error() string {
	quoted := make([]string, len(e.Files))
	for i, f := range e.Files {
		quoted[i] = q(f)
	}
	return fmt.Sprintf("import --write would start %d command(s) of the project config %s, which came with the project (a cloned repository chooses them), and nobody was asked; nothing was started or written. Review the commands, then import with --trust-project", e.Commands, strings.Join(quoted, ", "))
}

// EventKind says what an Event reports.
type EventKind int

const (
	Nothing     EventKind = iota // no server to import
	DryRun                       // nothing was written; Locks would be
	MadeLockDir                  // Dir was created, private, for Lock
	Wrote                        // Entries were merged into Lock (Written)
	Rewriting                    // Rewrite is shown (made when Write)
	Rewrote                      // Rewrite was written, Backup beside it
	Failure                      // Err, a further failure (the first is returned)
)

// Event is one step of Apply.
type Event struct {
	Kind    EventKind
	Lock    string
	Locks   []string // DryRun: the lockfiles --write would lock into
	Dir     string
	Entries map[string]*lockfile.Server
	Written *locker.Written
	Rewrite *Rewrite
	Write   bool
	Backup  string
	Err     error
}

// Apply carries out the plan of groups: without Write it shows each
// config's rewrite; with Write (and the user's consent for project
// configs) it locks each group's candidates into its lockfile and rewrites
// the configs of those that locked. One group that fails does not hold
// back the others; the first error is returned, and a refused project
// config (RefusedConfigError) when nothing else failed.
func Apply(ctx context.Context, groups []*Group, o ApplyOptions) error {
	refusal := RefusedError(groups)
	if Count(groups) == 0 {
		o.Event(Event{Kind: Nothing})
		return refusal
	}
	if !o.Write {
		var locks []string
		for _, g := range groups {
			if err := o.rewrite(g); err != nil {
				return err
			}
			if len(g.Cands) > 0 {
				locks = append(locks, g.Lock)
			}
		}
		o.Event(Event{Kind: DryRun, Locks: locks})
		return refusal
	}
	if lines, files := Shared(groups); len(lines) > 0 && !o.TrustProject {
		if o.Ask == nil {
			return &UntrustedProjectError{Files: files, Commands: len(lines)}
		}
		if err := o.Ask(lines, files); err != nil {
			return err
		}
	}
	var firstErr error
	for _, g := range groups {
		if len(g.Cands) == 0 {
			continue
		}
		if err := o.group(ctx, g); err != nil {
			if firstErr != nil {
				o.Event(Event{Kind: Failure, Err: err})
			}
			firstErr = firstNonNil(firstErr, err)
		}
	}
	if firstErr != nil && refusal != nil {
		o.Event(Event{Kind: Failure, Err: refusal})
	}
	return firstNonNil(firstErr, refusal)
}

// group locks a group's candidates and rewrites its configs.
func (o *ApplyOptions) group(ctx context.Context, g *Group) error {
	if err := o.makeLockDir(g.Lock); err != nil {
		return err
	}
	if err := o.lock(ctx, g); err != nil {
		return err
	}
	rewriteErr := o.rewrite(g)
	if failed, first := Failed(g.Cands); len(failed) > 0 {
		left := "their entries in the client config were left as they are"
		if len(failed) == 1 {
			left = "its entry in the client config was left as it is"
		}
		return &locker.FailedError{Cause: first, Summary: fmt.Sprintf("import: could not lock %s (see above); %s", strings.Join(failed, ", "), left)}
	}
	return rewriteErr
}

// makeLockDir creates the lockfile's folder, private, when it is missing
// (the default lock of user configs lives in a folder that may not exist yet).
func (o *ApplyOptions) makeLockDir(lock string) error {
	dir := filepath.Dir(lock)
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the lockfile's folder: %w", err)
	}
	o.Event(Event{Kind: MadeLockDir, Dir: dir, Lock: lock})
	return nil
}

// lock locks every candidate of g in parallel and writes those that locked
// (one failure does not hold back the others).
func (o *ApplyOptions) lock(ctx context.Context, g *Group) error {
	existing, err := lockfile.Load(g.Lock)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	jobs := make([]locker.Job, 0, len(g.Cands))
	var cands []int // the index in g.Cands of each job
	for i, c := range g.Cands {
		// import --era: an entry of another era is not moved (locker/era.go).
		if err := locker.EraConflict(existing, g.Lock, c.Name, c.Target, o.Pin.Era); err != nil {
			g.Cands[i].Err = err
			o.Event(Event{Kind: Failure, Err: err})
			continue
		}
		jobs = append(jobs, locker.Imported(existing, c.Name, *c.Target))
		cands = append(cands, i)
	}
	opts := o.Pin
	opts.Lockfile = g.Lock
	out := locker.Run(ctx, jobs, opts, o.Progress)
	for k, r := range out.Results {
		g.Cands[cands[k]].Entry, g.Cands[cands[k]].Err = r.Entry, r.Err
	}
	if len(out.Entries) == 0 {
		return nil
	}
	if o.CheckLog != nil {
		if err := o.CheckLog(ctx, existing, out.Entries); err != nil {
			return fmt.Errorf("%w\n%s", err, locker.Untouched(g.Lock))
		}
	}
	if o.Review != nil && existing != nil {
		again := map[string]*lockfile.Server{}
		for n, e := range out.Entries {
			if existing.Servers[n] != nil {
				again[n] = e
			}
		}
		if len(again) > 0 {
			if err := o.Review(g.Lock, existing, again); err != nil {
				return err
			}
		}
	}
	lo := o.Locker
	lo.Planned = planned(g)
	w, err := locker.Write(g.Lock, nil, out.Entries, lo)
	var refused *locker.RefusedError
	if errors.As(err, &refused) {
		w, err = &locker.Written{Refused: refused.Refused}, nil
	}
	if err != nil {
		return err
	}
	for _, r := range w.Refused { // its config is not rewritten (Failed names it)
		o.Event(Event{Kind: Failure, Err: r})
		for i := range g.Cands {
			if g.Cands[i].Name == r.Server {
				g.Cands[i].Entry, g.Cands[i].Err = nil, r
				delete(out.Entries, r.Server)
			}
		}
	}
	if len(out.Entries) > 0 {
		o.Event(Event{Kind: Wrote, Lock: g.Lock, Entries: out.Entries, Written: w})
	}
	return nil
}

// rewrite shows (or, with Write, makes) the change of every config of g
// with a locked server: its command and args become mcpsum proxy.
func (o *ApplyOptions) rewrite(g *Group) error {
	var firstErr error
	for _, rw := range Rewrites(g, o.Self, o.Serve) {
		o.Event(Event{Kind: Rewriting, Rewrite: rw, Write: o.Write})
		if rw.Snippet != "" {
			continue
		}
		if rw.Err != nil {
			firstErr = firstNonNil(firstErr, rw.Err)
			continue
		}
		if !o.Write {
			continue
		}
		stateDir, err := statefile.Dir()
		if err == nil {
			var backup string
			if backup, err = rw.Write(stateDir, o.Now()); err == nil {
				o.Event(Event{Kind: Rewrote, Rewrite: rw, Backup: backup})
			}
		}
		firstErr = firstNonNil(firstErr, err)
	}
	return firstErr
}

func firstNonNil(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// planned are g's configs as the import rewrites them: each entry whose
// server locked runs mcpsum proxy for it (shadowing in a user lock is
// judged among the servers each client runs together).
func planned(g *Group) []*clientconfig.Config {
	runs := map[*clientconfig.Config]map[clientconfig.Key]string{}
	for _, c := range g.Cands {
		if c.Entry == nil {
			continue
		}
		for _, r := range c.Where {
			if runs[r.Config] == nil {
				runs[r.Config] = map[clientconfig.Key]string{}
			}
			runs[r.Config][r.Key] = c.Name
		}
	}
	out := make([]*clientconfig.Config, 0, len(g.Configs))
	for _, cfg := range g.Configs {
		out = append(out, clientconfig.Planned(cfg, g.Lock, runs[cfg]))
	}
	return out
}
