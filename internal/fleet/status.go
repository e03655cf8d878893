package fleet

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// StatusVersion is the version of the report `fleet status --json` prints
// (docs/fleet-status.schema.json).
const StatusVersion = 1

// The states of a client's policy (ClientStatus.State).
const (
	StateInPlace = "in-place" // there, and what fleet emit writes for the installed lock
	StateDrift   = "drift"    // there, but it admits something else, or not everything
	StateMissing = "missing"  // no policy file where the client reads it
	StateMDM     = "mdm-only" // the client reads its policy from MDM only; not checked here
)

// StatusOptions say what to check.
type StatusOptions struct {
	Lockfile string
	Trust    string      // the machine's trust file ("" for Lockfile+TrustSuffix, not a problem when missing there)
	Emit     EmitOptions // how the policies should name mcpsum (Lockfile is set from above)
	Required []string    // clients whose policy must be in place (a missing one is drift)
	Env      Env
	Now      func() time.Time // the clock an expiry is read against (time.Now when nil)
}

// Report is what an MDM compliance check reads.
type Report struct {
	Version    int            `json:"version"`
	Lockfile   string         `json:"lockfile"`
	Installed  bool           `json:"installed"`
	Name       *string        `json:"name"`
	Serial     *int64         `json:"serial"`
	Expires    *time.Time     `json:"expires"`
	Expired    bool           `json:"expired"`
	Signer     *string        `json:"signer"`
	LockDigest *string        `json:"lockDigest"`
	Synced     *time.Time     `json:"synced"`
	From       *string        `json:"from"`
	Log        *Checkpoint    `json:"log"`
	Mode       string         `json:"mode"`
	Clients    []ClientStatus `json:"clients"`
	Drift      bool           `json:"drift"`
	Problems   []string       `json:"problems"`
}

// ClientStatus is one client's policy.
type ClientStatus struct {
	Client   string   `json:"client"`
	Path     *string  `json:"path"`
	State    string   `json:"state"`
	Required bool     `json:"required"`
	Problems []string `json:"problems"`
}

// Status reports the installed org lock (serial, signer, where and when
// it came from, the log checkpoint its surfaces were checked against),
// whether it is still the lock its release names, and each client's policy
// against what fleet emit would write for it. Drift is any difference.
func Status(o StatusOptions) *Report {
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Report{Version: StatusVersion, Lockfile: o.Lockfile, Mode: o.Emit.Mode, Problems: []string{}}
	for _, n := range o.Required {
		if _, ok := ClientByName(n); !ok {
			r.Problems = append(r.Problems, fmt.Sprintf("no client %q (known: %s)", n, strings.Join(ClientNames(), ", ")))
		}
	}
	es := r.readLock(o)
	for _, c := range Clients {
		cs := clientStatus(c, es, o)
		if cs.State == StateDrift || cs.Required && cs.State != StateInPlace {
			r.Drift = true
		}
		r.Clients = append(r.Clients, cs)
	}
	r.Drift = r.Drift || len(r.Problems) > 0
	return r
}

// readLock fills in the installed lock and its release, and returns the
// entries the policies should admit (nil when there is no valid lock).
func (r *Report) readLock(o StatusOptions) []Entry {
	data, err := lockfile.ReadFile(o.Lockfile)
	if missing(err) {
		r.Problems = append(r.Problems, fmt.Sprintf("no org lock at %s: install it with mcpsum fleet sync", quote(o.Lockfile)))
		return nil
	}
	if err != nil {
		r.Problems = append(r.Problems, problem(err))
		return nil
	}
	r.Installed = true
	// What sync installed is the organisation's word only while no one
	// else can change it: a lock and release statement others may write
	// could both be replaced, and nothing here checks the signature again.
	insecure := false // the lock's path is reported: the policies' check says it once
	if err := secureDir(filepath.Dir(o.Lockfile)); err != nil {
		r.Problems, insecure = append(r.Problems, problem(err)), true
	}
	// (readRecord checks the record; a missing release is reported below.)
	for _, s := range []string{"", ReleaseSuffix, BundleSuffix} {
		if err := secureFile(o.Lockfile + s); err != nil && !missing(err) {
			r.Problems, insecure = append(r.Problems, problem(err)), insecure || s == ""
		}
	}
	d := Digest(data)
	r.LockDigest = &d
	if raw, err := safeio.ReadRegular(o.Lockfile+ReleaseSuffix, "release statement", maxRelease); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("no release statement beside the lock (%v): it was not installed by mcpsum fleet sync", err))
	} else if rel, err := ParseRelease(raw); err != nil {
		r.Problems = append(r.Problems, problem(err))
	} else {
		r.Name, r.Serial, r.Expires = &rel.Name, &rel.Serial, &rel.Expires
		if r.Expired = rel.Expired(o.Now()); r.Expired {
			r.Problems = append(r.Problems, fmt.Sprintf("release %d of %s expired at %s: the organisation must release again (mcpsum fleet release --name %s), then mcpsum fleet sync installs it",
				rel.Serial, rel.Name, rel.Expires.Format(time.RFC3339), rel.Name))
		}
		if rel.Lockfile != d {
			r.Problems = append(r.Problems, fmt.Sprintf("the installed lock is %s, but its release %d names %s: it was changed after fleet sync installed it", d, rel.Serial, rel.Lockfile))
		}
		r.checkTrustName(o, rel.Name)
	}
	if rec, err := readRecord(o.Lockfile); err != nil {
		r.Problems = append(r.Problems, problem(err))
	} else if rec != nil {
		r.Signer, r.From, r.Log = &rec.Signer, &rec.From, rec.Log
		t := rec.Synced
		r.Synced = &t
		if r.Serial != nil && rec.Serial != *r.Serial {
			r.Problems = append(r.Problems, fmt.Sprintf("the sync record is of release %d, the installed release is %d", rec.Serial, *r.Serial))
		}
	}
	f, err := lockfile.Parse(o.Lockfile, data)
	if err != nil {
		r.Problems = append(r.Problems, problem(err))
		return nil
	}
	eo := o.Emit
	eo.Lockfile = o.Lockfile
	es, err := Entries(f, eo)
	if err != nil {
		r.Problems = append(r.Problems, problem(err))
		return nil
	}
	if err := eo.localCheck(!insecure); err != nil {
		r.Problems = append(r.Problems, problem(err))
	}
	return es
}

func clientStatus(c *Client, es []Entry, o StatusOptions) ClientStatus {
	cs := ClientStatus{Client: c.Name, Required: slices.Contains(o.Required, c.Name), Problems: []string{}}
	data, p, err := c.installedPolicy(o.Env)
	if p != "" {
		cs.Path = &p
	}
	switch {
	case p == "" || c.check == nil:
		cs.State = StateMDM
		if cs.Required {
			cs.Problems = append(cs.Problems, c.Title+" reads its managed policy from an MDM profile or the registry only; mcpsum cannot check it here")
		}
		return cs
	case err != nil:
		cs.State, cs.Problems = StateDrift, append(cs.Problems, err.Error())
		return cs
	case data == nil && !(c.Name == "claude-code" && claudeSettingsExist(o.Env)):
		cs.State = StateMissing
		return cs
	case !c.Supports(o.Emit.Mode):
		cs.State = StateDrift
		cs.Problems = append(cs.Problems, fmt.Sprintf("its policy cannot express --mode %s", o.Emit.Mode))
		return cs
	}
	cs.Problems = append(cs.Problems, c.check(data, es, o.Emit.Mode, o.Env)...)
	cs.State = StateInPlace
	if len(cs.Problems) > 0 || es == nil {
		cs.State = StateDrift
	}
	return cs
}

// claudeSettingsExist reports whether Claude Code has file-based managed
// settings at all: mcpsum's drop-in may be missing while another file
// carries an allowlist.
func claudeSettingsExist(env Env) bool {
	dropins := filepath.Dir(env.at(claudeCodePlaces.on(env.GOOS)))
	if m, _ := filepath.Glob(filepath.Join(dropins, "*.json")); len(m) > 0 {
		return true
	}
	return fileExists(filepath.Join(filepath.Dir(dropins), "managed-settings.json"))
}

// checkTrustName reports an installed release of another org lock than
// the one the machine's trust file names (sync refuses to install one; a
// trust file edited since, or a release copied in by hand, would leave the
// machine enforcing a lock it no longer trusts). A trust file missing at
// its default place is not checked (a machine may keep it elsewhere: pass
// --trust); one named with --trust must be there.
func (r *Report) checkTrustName(o StatusOptions, name string) {
	path := cmp.Or(o.Trust, o.Lockfile+TrustSuffix)
	if _, err := os.Lstat(path); missing(err) && o.Trust == "" {
		return
	}
	t, err := ReadTrust(path)
	switch {
	case err != nil:
		r.Problems = append(r.Problems, problem(err))
	case t.Name != name:
		r.Problems = append(r.Problems, fmt.Sprintf("the installed release is of org lock %s, but the trust file %s names %s: run mcpsum fleet sync to install %s's release", quote(name), quote(path), quote(t.Name), quote(t.Name)))
	}
}

// Text is the report for a person.
func (r *Report) Text() string {
	var w strings.Builder
	if r.Installed {
		fmt.Fprintf(&w, "org lock   %s (%s)\n", r.Lockfile, deref(r.LockDigest))
	} else {
		fmt.Fprintf(&w, "org lock   %s: not installed\n", r.Lockfile)
	}
	if r.Serial != nil {
		fmt.Fprintf(&w, "release    %d of %s, signed by %s, from %s, synced %s\n", *r.Serial, deref(r.Name), deref(r.Signer), deref(r.From), timeText(r.Synced))
		state := "valid until"
		if r.Expired {
			state = "EXPIRED at"
		}
		fmt.Fprintf(&w, "expires    %s %s\n", state, timeText(r.Expires))
	}
	if r.Log != nil {
		fmt.Fprintf(&w, "log        %s, tree of %d records (%s)\n", r.Log.Origin, r.Log.Size, r.Log.Hash)
	} else if r.Installed {
		fmt.Fprintf(&w, "log        not checked (MCPSUMDB was not set when it was synced, or no entry has a log key)\n")
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&w, "  problem: %s\n", p)
	}
	for _, c := range r.Clients {
		req := ""
		if c.Required {
			req = " (required)"
		}
		fmt.Fprintf(&w, "%-15s %-9s %s%s\n", c.Client, c.State, deref(c.Path), req)
		for _, p := range c.Problems {
			fmt.Fprintf(&w, "  %s\n", p)
		}
	}
	if r.Drift {
		w.WriteString("drift: the machine does not enforce the org lock as fleet emit would\n")
	} else {
		w.WriteString("ok: no drift\n")
	}
	return w.String()
}

// problem is err for the report: its message, then its next steps.
func problem(err error) string {
	out := err.Error()
	for _, h := range hint.Of(err) {
		out += " (" + h + ")"
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "?"
	}
	return *s
}

func timeText(t *time.Time) string {
	if t == nil {
		return "?"
	}
	return t.UTC().Format(time.RFC3339)
}
