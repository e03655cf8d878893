package verify

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"slices"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/review"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Status of one server in a verify report.
const (
	StatusOK            = "ok"            // matches the lock
	StatusInformational = "informational" // only informational drift
	StatusDrift         = "drift"         // definitional drift
	StatusError         = "error"         // could not be checked
)

// Outcome is a whole report's verdict.
type Outcome int

const (
	Pass      Outcome = iota // every server matches (informational drift allowed unless strict)
	Fail                     // drift (definitional, or informational with strict)
	Undecided                // no drift, but a server could not be checked
)

// ServerResult is one server's verify outcome.
type ServerResult struct {
	Name     string
	Status   string
	Error    error // for StatusError
	Findings []lockfile.Finding
	Took     time.Duration
	Locked   *lockfile.Server
	Observed *lockfile.Server // nil unless the server answered in full
}

// Report is one verify run: observe every selected server, compare it with
// its entry, classify the differences. Text, --json and SARIF are renderings
// of it.
type Report struct {
	Lockfile string
	Strict   bool
	Servers  []*ServerResult // in the order asked for
	// Shadowing between the lock's servers that involves a server checked:
	// read from the lock (the surface clients see), a warning, and a
	// failure with Strict.
	Shadowing []review.Shadow
}

// Outcome is the verdict: drift (or shadowing with Strict) beats
// could-not-decide beats pass.
func (r *Report) Outcome() Outcome {
	out := Pass
	if r.Strict && len(r.Shadowing) > 0 {
		return Fail
	}
	for _, s := range r.Servers {
		switch {
		case s.Status == StatusDrift, s.Status == StatusInformational && r.Strict:
			return Fail
		case s.Status == StatusError:
			out = Undecided
		}
	}
	return out
}

// Verify runs each named server of f with its locked command in its locked
// era (several at once), lists its surface and compares it with the lock.
// It never writes the lockfile. opts.Lockfile names the lockfile.
func Verify(ctx context.Context, f *lockfile.File, names []string, strict bool, opts launch.Options) *Report {
	rep := &Report{Lockfile: opts.Lockfile, Strict: strict,
		Shadowing: review.ShadowingAmong(f.Servers, func(n string) bool { return slices.Contains(names, n) }, locker.Together(opts.Lockfile, nil))}
	obs := launch.Each(ctx, names, func(ctx context.Context, n string) (*lockfile.Server, error) {
		return launch.Observe(ctx, n, f.Servers[n], opts)
	})
	for i, n := range names {
		rep.Servers = append(rep.Servers, Classify(n, f.Servers[n], obs[i]))
	}
	return rep
}

// Lockfile reads the lockfile opts.Lockfile once (digests checked) and
// verifies its entries, or just name (Verify). It returns the bytes it
// read too: the SARIF log points into exactly the bytes checked.
func Lockfile(ctx context.Context, name string, strict bool, opts launch.Options) (*Report, []byte, error) {
	data, f, err := locker.Read(opts.Lockfile)
	if err != nil {
		return nil, nil, err
	}
	names, err := locker.Select(f, opts.Lockfile, name)
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, hint.Errorf("add one with mcpsum lock --lockfile "+termtext.ShellArg(opts.Lockfile)+" --name NAME -- COMMAND [ARG]...",
			"%s has no servers: nothing to verify", opts.Lockfile)
	}
	return Verify(ctx, f, names, strict, opts), data, nil
}

// Classify turns one observation into a result.
func Classify(name string, locked *lockfile.Server, o launch.Result) *ServerResult {
	r := &ServerResult{Name: name, Locked: locked, Took: o.Took}
	var dropped *launch.VersionDroppedError
	var issuer *launch.IssuerChangedError
	var pin *launch.PinChangedError
	switch {
	case errors.As(o.Err, &pin):
		r.Findings = []lockfile.Finding{pin.Finding()}
	case errors.As(o.Err, &issuer):
		r.Findings = []lockfile.Finding{{Class: lockfile.Definitional, Kind: lockfile.KindOAuthIssuer,
			Change: lockfile.Changed, Locked: issuer.Locked, Observed: issuer.Observed}}
	case errors.As(o.Err, &dropped):
		supported, _ := json.Marshal(dropped.Supported)
		r.Findings = []lockfile.Finding{{Class: lockfile.Definitional, Kind: lockfile.KindVersionDropped,
			Change: lockfile.Removed, Locked: dropped.Locked, Observed: string(supported)}}
	case o.Err != nil:
		r.Status, r.Error = StatusError, o.Err
		return r
	default:
		r.Observed = o.Entry
		r.Findings = lockfile.Compare(locked, o.Entry)
	}
	review.Label(r.Findings, locked, r.Observed)
	r.Status = StatusOK
	for _, fd := range r.Findings {
		switch {
		case fd.Class == lockfile.Definitional:
			r.Status = StatusDrift
		case r.Status == StatusOK:
			r.Status = StatusInformational
		}
	}
	return r
}
