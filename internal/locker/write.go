package locker

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Options say how entries are written.
type Options struct {
	Generator string // the lockfile's generator field ("mcpsum v1.2.3")
	// Strict refuses the write (a *ShadowError) when an entry written
	// shadows another server's tools (lock and import --strict).
	Strict bool
	// Planned are client configs as an import is about to rewrite them:
	// for the user lock, shadowing is judged among the servers each client
	// runs together, these configs in place of their files on disk.
	Planned []*clientconfig.Config
}

// ShadowError is the refusal of Strict: the shadowing between the entries
// to write and the lock's other servers. Nothing was written.
type ShadowError struct{ Shadows []review.Shadow }

func (e *ShadowError) Error() string {
	msg := fmt.Sprintf("--strict: %d shadowing finding(s) between servers; nothing was written:", len(e.Shadows))
	for _, s := range e.Shadows {
		msg += "\n  shadowing: " + s.String()
	}
	return msg + "\nkeep only one of the servers concerned, or lock without --strict to record them as warnings"
}

// shadows lists the shadowing in f that involves the entries being
// written, and refuses it under Strict.
func (o Options) shadows(path string, f *lockfile.File, entries map[string]*lockfile.Server) ([]review.Shadow, error) {
	shadows := review.ShadowingAmong(f.Servers, func(n string) bool { _, ok := entries[n]; return ok }, Together(path, o.Planned))
	if o.Strict && len(shadows) > 0 {
		return shadows, &ShadowError{Shadows: shadows}
	}
	return shadows, nil
}

// Written is what a write did besides writing.
type Written struct {
	// Notes, sorted: "NAME: the protocol era changed …", "NAME: dropped
	// taint label …".
	Notes []string
	// Shadows is the shadowing between the entries written and the lock's
	// other servers (internal/review).
	Shadows []review.Shadow
	// Refused are the entries not written because the lockfile holding
	// them could not be read back (lockfile.Fit): each names the server,
	// its largest item and the limit. Their old entries were kept.
	Refused []*lockfile.LimitError
}

// RefusedError is a write of which some entries were refused
// (Written.Refused); the others were written unless All.
type RefusedError struct {
	Refused []*lockfile.LimitError
	All     bool // nothing was written
}

// Unwrap is the refusals, each a *lockfile.LimitError.
func (e *RefusedError) Unwrap() []error {
	errs := make([]error, len(e.Refused))
	for i, r := range e.Refused {
		errs[i] = r
	}
	return errs
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	for i, r := range e.Refused {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.Error())
	}
	if e.All {
		b.WriteString("\nnothing was written")
	} else {
		b.WriteString("\nthe other entries were written")
	}
	return b.String()
}

// Write merges entries into the lockfile at path under its file lock,
// keeping each server's policy and log proof and noting the taint labels
// that had to be dropped. loaded is the file as read before the servers ran
// (nil if none): unless it changed meanwhile, it is not parsed again. An
// entry the lockfile could not hold and still be read back is refused
// (Written.Refused, its old entry kept) and the others are written; when
// every entry is refused, nothing is written and the error is a
// *RefusedError.
func Write(path string, loaded *lockfile.File, entries map[string]*lockfile.Server, o Options) (*Written, error) {
	w := &Written{}
	err := lockfile.UpdateFrom(path, loaded, func(f *lockfile.File) error {
		w.Notes = w.Notes[:0]
		prev := map[string]*lockfile.Server{}
		for n, e := range entries {
			if old := f.Servers[n]; old != nil {
				prev[n] = old
				launch.KeepLogProof(old, e)
				if old.Era() != e.Era() {
					w.Notes = append(w.Notes, fmt.Sprintf("%s: the protocol era changed from %s (%s) to %s (%s); the entry now records the new era", n, old.Era(), old.ProtocolVersion, e.Era(), e.ProtocolVersion))
				}
				for _, d := range lockfile.KeepPolicy(old, e) {
					w.Notes = append(w.Notes, fmt.Sprintf("%s: dropped taint label %s: the tool no longer exists (label its new name again if it was renamed)", n, d))
				}
			}
			f.Servers[n] = e
		}
		w.Refused = lockfile.Fit(f, entries, prev)
		if len(w.Refused) == len(entries) && len(entries) > 0 {
			return &RefusedError{Refused: w.Refused, All: true}
		}
		w.Notes = slices.DeleteFunc(w.Notes, func(note string) bool {
			return slices.ContainsFunc(w.Refused, func(r *lockfile.LimitError) bool { return strings.HasPrefix(note, r.Server+": ") })
		})
		f.Generator = o.Generator
		var err error
		w.Shadows, err = o.shadows(path, f, written(entries, w.Refused))
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(w.Notes)
	return w, nil
}

// written is entries without the refused ones.
func written(entries map[string]*lockfile.Server, refused []*lockfile.LimitError) map[string]*lockfile.Server {
	if len(refused) == 0 {
		return entries
	}
	out := maps.Clone(entries)
	for _, r := range refused {
		delete(out, r.Server)
	}
	return out
}

// Replaced is what ReplaceBroken did besides writing.
type Replaced struct {
	Shadows []review.Shadow
	// Discarded: a broken entry was discarded; Problem is what was wrong
	// with it.
	Discarded bool
	Problem   string
}

// ReplaceBroken writes entry in place of the broken entry name (see
// Plan.Broken), when every other entry is valid.
func ReplaceBroken(path, name string, entry *lockfile.Server, o Options) (*Replaced, error) {
	r := &Replaced{}
	var refused error
	discarded, err := lockfile.UpdateDiscarding(path, name, func(f *lockfile.File) error {
		f.Servers[name] = entry
		f.Generator = o.Generator
		r.Shadows, refused = o.shadows(path, f, map[string]*lockfile.Server{name: entry})
		return refused
	})
	if err != nil {
		if refused != nil {
			return nil, refused // Strict refused the shadowing; it says so itself
		}
		return nil, fmt.Errorf("%w (the broken entry %s can only be replaced when every other entry is valid; %s)", err, name, Untouched(path))
	}
	if discarded != nil {
		r.Discarded, r.Problem = true, brokenProblem(discarded)
	}
	return r, nil
}

// Remove deletes the entry name from the lockfile at path, under the
// lockfile's lock. A broken entry (one that no longer matches its digests)
// can be removed too: every other entry must be valid.
func Remove(path, name, generator string) error {
	if _, err := lockfile.ReadFile(path); errors.Is(err, fs.ErrNotExist) {
		return NoLockfile(path, name)
	}
	found := false
	discarded, err := lockfile.UpdateDiscarding(path, name, func(f *lockfile.File) error {
		if _, ok := f.Servers[name]; ok {
			found = true
			delete(f.Servers, name)
			f.Generator = generator
		}
		return nil
	})
	if err != nil {
		return err
	}
	if found || discarded != nil {
		return nil
	}
	f, err := lockfile.Load(path)
	if err != nil {
		return err
	}
	return NotLocked(f, path, name, "")
}

// Warnings lists, per entry in name order, what show would flag in the new
// entries: code-loading variables, machine-specific paths in the command,
// risky sandbox write paths, look-alike names ("NAME: warning"). The lock
// is written anyway: these are for the reviewer.
func Warnings(path string, entries map[string]*lockfile.Server) []string {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		e := entries[n]
		for _, w := range launch.Warnings(e, path) {
			out = append(out, n+": "+w)
		}
		for _, l := range review.Lookalikes(e) {
			out = append(out, n+": "+l)
		}
	}
	return out
}

// Together is, when path is the user lock, the server names each client
// found on this machine runs together (planned configs in place of their
// files); nil for any other lockfile (all its servers together).
func Together(path string, planned []*clientconfig.Config) [][]string {
	return clientconfig.Together(clientconfig.DirsFromEnv("."), path, planned)
}
