package locker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Resolve settles the merge conflict git left in the lockfile at path
// (lockfile.ErrMergeConflict). It reads both sides entry by entry
// (lockfile.ConflictSides, ParseLoose) and
//
//   - keeps an entry the two sides agree on, that matches its digests;
//   - re-locks an entry whose surface they disagree on, or whose digests a
//     line merge broke, with the command, environment names, URL, headers
//     and policy both sides give it (the live server decides, as a re-lock
//     does);
//   - keeps an entry only one side has (re-locked if it does not match its
//     digests), and says so: the other side may have removed it.
//
// An entry whose command, environment names, URL, headers or policy the
// sides disagree on is a person's choice: nothing is written, and the error
// names it with both versions. The file is written whole, without markers,
// only once every re-lock succeeded; otherwise it keeps its markers.
func Resolve(ctx context.Context, path string, opts launch.Options, o Options, h Hooks) error {
	data, err := lockfile.ReadFile(path)
	if err != nil {
		return err
	}
	ours, theirs, ok := lockfile.ConflictSides(data)
	if !ok {
		return hint.New(fmt.Sprintf("%s holds merge conflict markers that do not pair up (<<<<<<<, =======, >>>>>>>)", path),
			"resolve it by hand: keep one side's lines between the markers, delete the markers, then run mcpsum lock to re-lock what changed")
	}
	var sides [2]*lockfile.Loose
	for i, side := range [][]byte{ours, theirs} {
		if sides[i], err = lockfile.ParseLoose(path+" ("+sideName[i]+")", side); err != nil {
			return hint.Wrap(fmt.Errorf("the %s side of the merge conflict in %s is not a lockfile: %w", sideName[i], path, err),
				"resolve it by hand: keep one side's lines between the markers and delete the markers, then run mcpsum lock")
		}
	}
	r := resolution{kept: map[string]*lockfile.Server{}}
	names := slices.Compact(slices.Sorted(slices.Values(append(sides[0].Names(), sides[1].Names()...))))
	for _, n := range names {
		r.entry(n, sides)
	}
	if len(r.questions) > 0 {
		return hint.Wrap(fmt.Errorf("%s: the two sides of the merge conflict give %s different targets:\n  %s",
			path, strings.Join(r.undecided, ", "), strings.Join(r.questions, "\n  ")),
			fmt.Sprintf("choose: in %s keep one side's version of each of these entries (delete the other side's lines and the markers around them), then run: mcpsum lock --lockfile %s",
				path, termtext.ShellArg(path)))
	}
	for _, n := range r.notes {
		h.Note(n)
	}
	out := Run(ctx, r.jobs, opts, h.Progress)
	if err := out.FirstErr(); err != nil {
		return &FailedError{Cause: err, Summary: fmt.Sprintf("resolving the merge conflict in %s: lock failed for %s; nothing was written (the file keeps its conflict markers)",
			path, strings.Join(out.Failed, ", "))}
	}
	if err := h.checkLog(ctx, path, nil, out.Entries); err != nil {
		return err
	}
	f := &lockfile.File{Generator: o.Generator, Servers: maps.Clone(r.kept)}
	maps.Copy(f.Servers, out.Entries)
	shadows, err := o.shadows(path, f, out.Entries)
	if err != nil {
		return err
	}
	if err := lockfile.ReplaceConflicted(path, data, f); err != nil {
		return err
	}
	h.Wrote(path, out.Entries, &Written{Shadows: shadows})
	return nil
}

var sideName = [2]string{"ours", "theirs"}

// resolution is what Resolve decided, entry by entry.
type resolution struct {
	kept      map[string]*lockfile.Server // as they are
	jobs      []Job                       // to re-lock
	notes     []string
	undecided []string // entries whose target the sides disagree on (quoted)
	questions []string // each with both targets
}

func (r *resolution) entry(n string, sides [2]*lockfile.Loose) {
	var e [2]*lockfile.Server
	var verified [2]bool
	for i, s := range sides {
		e[i], verified[i] = s.Servers[n], s.Verified[n]
	}
	q := termtext.ShellArg(n)
	switch {
	case e[0] == nil && e[1] == nil: // broken on the sides that have it
		r.undecided = append(r.undecided, q)
		r.questions = append(r.questions, fmt.Sprintf("%s: unreadable on both sides (%v)", q, errors.Join(sides[0].Broken[n], sides[1].Broken[n])))
	case e[0] == nil || e[1] == nil:
		i := 0
		if e[0] == nil {
			i = 1
		}
		if sides[1-i].Broken[n] != nil {
			r.relock(n, e[i])
			r.notes = append(r.notes, fmt.Sprintf("%s: unreadable on the %s side of the merge conflict; re-locking the %s side's", q, sideName[1-i], sideName[i]))
			return
		}
		r.notes = append(r.notes, fmt.Sprintf("%s: only the %s side of the merge conflict has it; kept (if the other side removed it: mcpsum lock --remove %s)", q, sideName[i], q))
		if verified[i] {
			r.kept[n] = e[i]
		} else {
			r.relock(n, e[i])
		}
	case !sameTarget(e[0], e[1]):
		r.undecided = append(r.undecided, q)
		what := fmt.Sprintf("ours %s, theirs %s", describeTarget(e[0]), describeTarget(e[1]))
		if describeTarget(e[0]) == describeTarget(e[1]) {
			what = "the same command, different policies"
		}
		r.questions = append(r.questions, q+": "+what)
	case verified[0] && verified[1] && e[0].Digests.Surface == e[1].Digests.Surface && e[0].LogProof == e[1].LogProof:
		r.kept[n] = e[0]
	default:
		r.relock(n, e[0])
		r.notes = append(r.notes, fmt.Sprintf("%s: the two sides of the merge conflict lock different surfaces; re-locking it", q))
	}
}

func (r *resolution) relock(n string, e *lockfile.Server) {
	r.jobs = append(r.jobs, Job{Name: n, Target: e, Prefer: e.Era()})
}

// sameTarget: what a person chose for the entry is the same on both
// sides (what the server answers may differ: a re-lock settles that).
func sameTarget(a, b *lockfile.Server) bool {
	return slices.Equal(a.Command, b.Command) && slices.Equal(a.EnvPassthrough, b.EnvPassthrough) &&
		a.URL == b.URL && maps.Equal(a.Headers, b.Headers) && reflect.DeepEqual(a.Policy, b.Policy)
}

func describeTarget(e *lockfile.Server) string {
	s := "command " + termtext.ShellArgs(e.Command)
	if e.Remote() {
		s = "URL " + termtext.Quoted(e.URL, 200)
	}
	if len(e.EnvPassthrough) > 0 {
		s += " (env " + strings.Join(e.EnvPassthrough, ", ") + ")"
	}
	if e.Policy != nil {
		s += " with a policy"
	}
	return s
}
