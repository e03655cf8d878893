package locker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Hooks are how LockNew and Relock reach the user: the command supplies
// them and prints. The locks themselves are the library's (Run).
type Hooks struct {
	// Progress hears the locks as they run (nil: nothing).
	Progress Progress
	// CheckLog, when set, looks the entries up in the transparency log
	// before they are written into seen (the lockfile as read; nil when
	// there is none); an error writes nothing.
	CheckLog func(ctx context.Context, seen *lockfile.File, entries map[string]*lockfile.Server) error
	// Review, when set, sees the re-locked entries (and an entry that
	// replaces one of the same name) before they are written, to say what
	// the lock takes in; an error (lock --accept) writes nothing.
	Review func(path string, f *lockfile.File, entries map[string]*lockfile.Server) error
	// Accepting: lock --accept, which judges each change against one
	// locked entry; a lockfile with merge conflict markers (two) is then
	// not resolved (Resolve) but refused.
	Accepting bool
	// Note hears what a lock does besides locking, one line each.
	Note func(msg string)
	// Wrote hears that entries were written into the lockfile at path.
	Wrote func(path string, entries map[string]*lockfile.Server, w *Written)
}

// LockNew adds or replaces the entry name of the lockfile at path with
// target (a command, or a remote server's URL), replacing a broken entry
// of that name when it is the file's one problem. A failed lock leaves the
// lockfile untouched.
func LockNew(ctx context.Context, path, name string, target *lockfile.Server, opts launch.Options, o Options, h Hooks) error {
	if name == "" {
		return usageErr("lock needs --name for the new entry (the name you will pass to proxy and verify)")
	}
	if err := lockfile.ValidName(name); err != nil {
		return usageErr("--name %s: %v", termtext.ShellArg(name), err)
	}
	plan, err := PlanNew(path, name, target)
	if err != nil {
		return err
	}
	if err := EraConflict(plan.Loaded, path, name, target, opts.Era); err != nil {
		return err
	}
	if plan.Broken != "" {
		h.Note(fmt.Sprintf("%s: the entry in %s is broken (%s); locking it afresh to replace it", name, path, plan.Broken))
	}
	out := Run(ctx, []Job{{Name: name, Target: target, Prefer: plan.Prefer}}, opts, h.Progress)
	if err := out.FirstErr(); err != nil {
		return &FailedError{Cause: err, Summary: fmt.Sprintf("lock failed for %s; %s", name, Untouched(path))}
	}
	if plan.Loaded != nil && plan.Loaded.Servers[name] != nil && h.Review != nil {
		if err := h.Review(path, plan.Loaded, out.Entries); err != nil {
			return err
		}
	}
	if err := h.checkLog(ctx, path, plan.Loaded, out.Entries); err != nil {
		return err
	}
	if plan.Broken == "" {
		if err := write(path, plan.Loaded, out.Entries, o, h); err != nil {
			return err
		}
		for _, n := range plan.Notes {
			h.Note(n)
		}
		return nil
	}
	r, err := ReplaceBroken(path, name, out.Entries[name], o)
	if err != nil {
		return err
	}
	if r.Discarded {
		h.Note(fmt.Sprintf("%s: discarded the broken entry (its command, surface and any policy are gone; 'git diff HEAD -- %s' shows them)", name, termtext.ShellArg(path)))
		if r.Problem != plan.Broken {
			// The file changed between the two reads: say what was discarded.
			h.Note(fmt.Sprintf("%s: the discarded entry: %s", name, r.Problem))
		}
	}
	h.Wrote(path, out.Entries, &Written{Shadows: r.Shadows})
	return nil
}

// Relock re-pins the existing entries of the lockfile at path (or just
// name) with their locked command, in parallel. The servers that lock are
// written even when others fail: one dead server does not hold back the
// rest; the failed ones keep their entry and the error names them.
func Relock(ctx context.Context, path, name string, opts launch.Options, o Options, h Hooks) error {
	f, err := lockfile.Load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NoLockfile(path, name)
	}
	if errors.Is(err, lockfile.ErrMergeConflict) && name == "" && !h.Accepting {
		return Resolve(ctx, path, opts, o, h) // git left the file with conflict markers
	}
	if err != nil {
		return err
	}
	if name != "" && f.Servers[name] == nil {
		return notLocked(f, path, name)
	}
	names, err := Select(f, path, name)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageHint("add one with mcpsum lock --lockfile "+termtext.ShellArg(path)+" --name NAME -- COMMAND [ARG]...", "%s has no servers yet", path)
	}
	out := Run(ctx, Relocks(f, names), opts, h.Progress)
	if h.Review != nil {
		if err := h.Review(path, f, out.Entries); err != nil {
			return err
		}
	}
	if err := h.checkLog(ctx, path, f, out.Entries); err != nil {
		return err
	}
	if len(out.Failed) == 0 {
		return write(path, f, out.Entries, o, h)
	}
	kept := Untouched(path)
	if len(out.Entries) > 0 {
		if err := write(path, f, out.Entries, o, h); err != nil {
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.All {
				return err
			}
			h.Note(err.Error())
		}
		kept = "their entries were left as they were; the others were re-locked"
	}
	failed, qp, qn := out.Failed, termtext.ShellArg(path), termtext.ShellArg(out.Failed[0])
	return &FailedError{Cause: out.FirstErr(), Summary: fmt.Sprintf("lock failed for %s (see above); %s", strings.Join(failed, ", "), kept),
		Next: []string{fmt.Sprintf("once it starts again: mcpsum lock --lockfile %s --name %s", qp, qn),
			fmt.Sprintf("or, if it is gone for good: mcpsum lock --lockfile %s --remove %s", qp, qn)}}
}

func (h Hooks) checkLog(ctx context.Context, path string, seen *lockfile.File, entries map[string]*lockfile.Server) error {
	if h.CheckLog == nil {
		return nil
	}
	if err := h.CheckLog(ctx, seen, entries); err != nil {
		return fmt.Errorf("%w\n%s", err, Untouched(path))
	}
	return nil
}

// write merges entries into the lockfile (Write) and tells h.Wrote about
// the ones written; entries refused for a limit are a *RefusedError.
func write(path string, loaded *lockfile.File, entries map[string]*lockfile.Server, o Options, h Hooks) error {
	w, err := Write(path, loaded, entries, o)
	if err != nil {
		return err
	}
	h.Wrote(path, written(entries, w.Refused), w)
	if len(w.Refused) > 0 {
		return &RefusedError{Refused: w.Refused}
	}
	return nil
}

// notLocked is the answer to a re-lock of an entry the lockfile lacks:
// most often a new server whose command was left out, so the hint is the
// command that locks it.
func notLocked(f *lockfile.File, path, name string) error {
	return NotLocked(f, path, name, fmt.Sprintf("to lock a new server, give its command after --: 'mcpsum lock --lockfile %s --name %s -- COMMAND [ARG]...' (or its --url URL)",
		termtext.ShellArg(path), termtext.ShellArg(name)))
}
