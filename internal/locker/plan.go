package locker

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Plan is what a new lock of one entry keeps from the lockfile as it is.
type Plan struct {
	// Loaded is the lockfile as read before the server runs (nil when there
	// is none, or when its entry is Broken).
	Loaded *lockfile.File
	// Prefer is the era to probe first: the locked one, when the entry is
	// locked with the same target.
	Prefer string
	// Broken is the problem of the locked entry when it fails to parse or
	// to match its digests (and nothing else is wrong with the file): the
	// new lock replaces it (ReplaceBroken). "" when it is not broken.
	Broken string
	// Notes say what the new entry replaces ("NAME: replaced the locked
	// command A with B"), to be said once it is written.
	Notes []string
}

// PlanNew plans adding or replacing entry name of the lockfile at path with
// target (a command, or a remote server's URL). It keeps the policy of an
// entry already locked under that name, setting target.Policy.
func PlanNew(path, name string, target *lockfile.Server) (*Plan, error) {
	p := &Plan{}
	old, err := lockfile.Load(path)
	var policy *lockfile.Policy
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case brokenEntry(err, name):
		p.Broken = brokenProblem(err)
	case err != nil:
		return nil, err
	default:
		p.Loaded = old
		if e := old.Servers[name]; e != nil {
			policy = e.Policy
			if e.Remote() == target.Remote() && slices.Equal(e.Command, target.Command) && e.URL == target.URL {
				p.Prefer = e.Era()
			} else {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: replaced the locked %s", name, replacedTarget(e, target)))
			}
			if !e.Remote() && !target.Remote() && !slices.Equal(e.EnvPassthrough, target.EnvPassthrough) {
				p.Notes = append(p.Notes, fmt.Sprintf("%s: envPassthrough was [%s], now [%s]", name, strings.Join(e.EnvPassthrough, ", "), strings.Join(target.EnvPassthrough, ", ")))
			}
		}
	}
	if policy != nil && policy.Sandbox != nil && target.Remote() {
		return nil, usageHint("remove policy.sandbox from the entry in "+path+" first", "%s: the entry has a sandbox policy, and a remote server has no process to confine", name)
	}
	target.Policy = policy
	return p, nil
}

// brokenEntry reports whether err is entry name failing to parse or to
// match its digests (and nothing else wrong with the file).
func brokenEntry(err error, name string) bool {
	var ie *lockfile.IntegrityError
	var fe *lockfile.FormatError
	return errors.As(err, &ie) && ie.Server == name || errors.As(err, &fe) && fe.Server == name
}

// brokenProblem is what is wrong with a broken entry, without the advice
// the error gives a user who has not started the recovery yet.
func brokenProblem(err error) string {
	var ie *lockfile.IntegrityError
	var fe *lockfile.FormatError
	switch {
	case errors.As(err, &ie):
		return ie.Problem()
	case errors.As(err, &fe):
		return fe.Problem()
	}
	return err.Error()
}

// replacedTarget says what a new lock replaced: "command A with B", "URL A
// with B", or, across kinds, "command A with URL B".
func replacedTarget(old, now *lockfile.Server) string {
	describe := func(e *lockfile.Server) (string, string) {
		if e.Remote() {
			return "URL", termtext.ShellArg(e.URL)
		}
		return "command", termtext.ShellArgs(e.Command)
	}
	ok, ov := describe(old)
	nk, nv := describe(now)
	if ok == nk {
		return ok + " " + ov + " with " + nv
	}
	return ok + " " + ov + " with " + nk + " " + nv
}

// Job is one server to lock: its name, its target (command or URL, with
// the policy to keep) and the era to probe first ("" for none).
type Job struct {
	Name   string
	Target *lockfile.Server
	Prefer string
}

// Relocks are the jobs that re-lock entries names of f with their locked
// command, in their locked era first.
func Relocks(f *lockfile.File, names []string) []Job {
	jobs := make([]Job, len(names))
	for i, n := range names {
		e := f.Servers[n]
		jobs[i] = Job{Name: n, Target: e, Prefer: e.Era()}
	}
	return jobs
}

// Imported is the job that locks target as entry name, keeping the era
// and policy of an entry of existing (nil: none) of that name.
func Imported(existing *lockfile.File, name string, target lockfile.Server) Job {
	j := Job{Name: name, Target: &target}
	if existing != nil && existing.Servers[name] != nil {
		j.Prefer, target.Policy = existing.Servers[name].Era(), existing.Servers[name].Policy
	}
	return j
}
