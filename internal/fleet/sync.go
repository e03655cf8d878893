package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/safeio"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
	"github.com/mcpsum/mcpsum/pkg/sumdb"
)

// DefaultLock is where sync installs the org lock and emit and status
// read it.
const DefaultLock = "/etc/mcpsum/org.lock"

// SyncOptions say what to sync from and to.
type SyncOptions struct {
	From  string // URL or file of the published org lock
	To    string // the installed lock (DefaultLock)
	Trust string // the trust file ("" for To+TrustSuffix)

	Helper   attestproto.Client
	Log      *sumdb.Config // nil: no transparency log configured
	StateDir string        // the log's remembered checkpoint lives here
	Note     func(string)  // progress lines for the user
	Now      func() time.Time
}

// SyncResult says what a sync did.
type SyncResult struct {
	Path     string
	Serial   int64
	Previous int64 // the serial installed before (0: none)
	Signer   string
	Name     string    // the org lock's release name
	Expires  time.Time // when the release stops being valid
	Changed  bool      // false: the same release was installed already
	Repaired bool      // the same serial, but an installed file did not match it
	Log      *Checkpoint
}

// published is one fetched release: the statement, its bundle, the lock.
type published struct {
	release, bundle, lock []byte
	r                     Release
	f                     *lockfile.File
}

// Sync installs the org lock published at o.From as o.To, atomically and
// 0644, when a signer of the trust file signed its release, its serial is
// higher than the installed one and, with a log configured, its keyed
// surfaces are the logged ones. The same serial again changes nothing. A
// refusal is a *RefusedError; on any error nothing was written.
func Sync(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	if o.Note == nil {
		o.Note = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	to, err := filepath.Abs(o.To)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(to)
	if err := installDir(dir); err != nil {
		return nil, err
	}
	trustPath := o.Trust
	if trustPath == "" {
		trustPath = to + TrustSuffix
	}
	trust, err := ReadTrust(trustPath)
	if err != nil {
		return nil, err
	}
	src, err := openSource(o.From)
	if err != nil {
		return nil, err
	}
	p, signer, err := fetchVerified(ctx, src, trust, o.Helper)
	if err != nil {
		return nil, err
	}
	if err := admissible(p.r, trust, o.Now()); err != nil {
		return nil, err
	}
	o.Note(fmt.Sprintf("release %d of %s (%s) is signed by %s (%s)", p.r.Serial, p.r.Name, quote(src.from), signer.Name, p.r.Lockfile))

	lk, err := statefile.LockTimeout(dir, 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (another fleet sync runs)", quote(dir), err)
	}
	defer lk.Unlock()
	res := &SyncResult{Path: to, Serial: p.r.Serial, Signer: signer.Name, Name: p.r.Name, Expires: p.r.Expires}
	st, err := installedState(to, p, trust.Name, o.Note)
	if err != nil {
		return nil, err
	}
	if err := st.admits(p.r, res, o.Note); err != nil {
		return nil, err
	}
	if st.same && st.prev.Serial == p.r.Serial {
		o.Note(fmt.Sprintf("release %d is installed already; nothing changed", p.r.Serial))
		return res, nil
	}
	if o.Log != nil {
		state := o.StateDir
		if state == "" {
			if state, err = statefile.Dir(); err != nil {
				return nil, err
			}
		}
		if res.Log, err = checkLog(ctx, o.Log, state, p.f, o.Note); err != nil {
			return nil, err
		}
	}
	rec := Record{Name: p.r.Name, Serial: p.r.Serial, Highest: max(p.r.Serial, st.highest), Signer: signer.Name, Lockfile: p.r.Lockfile,
		Expires: p.r.Expires, From: src.from, Synced: o.Now().UTC().Truncate(time.Second), Log: res.Log}
	if err := install(to, p, rec); err != nil {
		return nil, err
	}
	res.Changed = true
	return res, nil
}

// fetchVerified fetches the release, its bundle and the lock, and checks
// them in that order: the statement's signature against the trust file,
// the statement itself, the lock's bytes against the statement's digest,
// then the lock's own digests.
func fetchVerified(ctx context.Context, src *source, trust *Trust, c attestproto.Client) (*published, *Signer, error) {
	p := &published{}
	var err error
	if p.release, err = src.get(ctx, ReleaseSuffix, "release statement", maxRelease); err != nil {
		return nil, nil, err
	}
	if p.bundle, err = src.get(ctx, BundleSuffix, "release signature bundle", maxBundle); err != nil {
		return nil, nil, err
	}
	if p.lock, err = src.get(ctx, "", "org lock", maxLock); err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "mcpsum-fleet-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(tmp)
	bundle := filepath.Join(tmp, "release.sigstore.json")
	if err := os.WriteFile(bundle, p.bundle, 0o600); err != nil {
		return nil, nil, err
	}
	signer, _, err := trust.Verify(ctx, c, p.release, bundle)
	if err != nil {
		return nil, nil, err
	}
	if p.r, err = ParseRelease(p.release); err != nil {
		return nil, nil, err
	}
	if got := Digest(p.lock); got != p.r.Lockfile {
		return nil, nil, refuse(WhyMismatch, "the lock at %s is %s, but release %d names %s", quote(src.from), got, p.r.Serial, p.r.Lockfile)
	}
	if p.f, err = lockfile.Parse(src.from, p.lock); err != nil {
		var ie *lockfile.IntegrityError
		if errors.As(err, &ie) {
			return nil, nil, &RefusedError{Why: WhyLock, Err: err}
		}
		return nil, nil, err
	}
	return p, signer, nil
}

// admissible refuses a release of another org lock than the trust file
// names, one that expired, and one below the trust file's minSerial.
func admissible(r Release, trust *Trust, now time.Time) error {
	switch {
	case r.Name != trust.Name:
		return refuse(WhyName, "release %d is of the org lock %s, but %s names %s: a release of another org lock", r.Serial, quote(r.Name), quote(trust.Path), quote(trust.Name))
	case r.Expired(now):
		return &RefusedError{Why: WhyExpired, Err: hint.Errorf("the organisation must release again: 'mcpsum fleet release --name "+r.Name+" --serial N' with N above "+fmt.Sprint(r.Serial)+", published where sync fetches it",
			"release %d of %s expired at %s (a mirror may be holding this machine on an old release)", r.Serial, r.Name, r.Expires.Format(time.RFC3339))}
	case r.Serial < trust.MinSerial:
		return refuse(WhyRollback, "release %d is below %s's minSerial %d (a rollback)", r.Serial, quote(trust.Path), trust.MinSerial)
	}
	return nil
}

// installed is what a sync finds installed of the trust file's org lock:
// its release statement, the sync record, and the highest serial either
// says this machine installed (the rollback floor).
type installed struct {
	prev    *Release // the installed statement (nil: none, or another org lock's)
	rec     *Record  // the sync record (nil: none, or another org lock's)
	highest int64
	same    bool // every installed file is the one p would install
}

// installedState reads what is installed at to of the org lock name and
// whether every installed file is the one p would install. A statement or
// record of another org lock (the trust file was changed to name another)
// is no floor for this one.
func installedState(to string, p *published, name string, note func(string)) (*installed, error) {
	st := &installed{}
	rec, err := readRecord(to)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.Name == name {
		st.rec, st.highest = rec, rec.Highest
	}
	raw, err := readInstalled(to+ReleaseSuffix, "installed release statement", maxRelease)
	if raw == nil || err != nil {
		return st, err
	}
	r, err := ParseRelease(raw)
	if err != nil {
		return nil, hint.Errorf("remove it to install the published release (the sync record keeps the rollback floor)", "%s: %w", quote(to+ReleaseSuffix), err)
	}
	if r.Name != name {
		note(fmt.Sprintf("the installed release is of the org lock %s; the trust file names %s: installing its release", r.Name, name))
		return st, nil
	}
	st.prev, st.highest = &r, max(st.highest, r.Serial)
	st.same = bytes.Equal(raw, p.release)
	for _, f := range []struct {
		suffix string
		want   []byte
		max    int64
	}{{"", p.lock, maxLock}, {BundleSuffix, p.bundle, maxBundle}} {
		b, err := readInstalled(to+f.suffix, "installed file", f.max)
		if err != nil {
			return nil, err
		}
		st.same = st.same && bytes.Equal(b, f.want)
	}
	// The record status reads is part of an installation: a missing one is
	// repaired like an edited lock.
	st.same = st.same && st.rec != nil && st.rec.Serial == r.Serial && st.rec.Lockfile == r.Lockfile && st.rec.Expires.Equal(r.Expires)
	return st, nil
}

// admits refuses r when this machine installed a higher serial (a
// rollback) or the same serial naming another lock, and fills in res.
func (st *installed) admits(r Release, res *SyncResult, note func(string)) error {
	last := st.prev
	if last == nil && st.rec != nil {
		last = &Release{Serial: st.rec.Serial, Lockfile: st.rec.Lockfile}
	}
	if last != nil {
		res.Previous = last.Serial
	}
	switch {
	case r.Serial < st.highest && (st.prev == nil || st.highest > st.prev.Serial):
		return refuse(WhyRollback, "release %d is older than release %d this machine installed before (the sync record's highest serial; a rollback)", r.Serial, st.highest)
	case r.Serial < st.highest:
		return refuse(WhyRollback, "release %d is older than the installed release %d (a rollback)", r.Serial, st.highest)
	case last == nil || r.Serial != last.Serial:
		return nil
	case r.Lockfile != last.Lockfile:
		return refuse(WhyEquivocation, "release %d names lock %s, but release %d installed here names %s: one serial, two locks", r.Serial, r.Lockfile, last.Serial, last.Lockfile)
	case !st.same:
		res.Repaired = true
		note(fmt.Sprintf("release %d is installed, but an installed file does not match it; installing it again", r.Serial))
	}
	return nil
}

// readInstalled reads a file sync installed; nil when it is not there.
func readInstalled(p, what string, max int64) ([]byte, error) {
	if err := secureFile(p); err != nil {
		if missing(err) {
			return nil, nil
		}
		return nil, err
	}
	return safeio.ReadOwn(p, what, max)
}

// installDir makes sure dir exists (0755) and only root or the caller can
// change it.
func installDir(dir string) error {
	if _, err := os.Stat(dir); missing(err) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return hint.Errorf("run fleet sync as root, or give --to a folder of yours", "creating %s: %w", quote(dir), err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			return err
		}
	}
	return secureDir(dir)
}

// install writes the lock, its bundle, the statement and the record, each
// atomically and 0644. The statement comes after what it names, so a crash
// leaves the old statement beside a new lock, which the next sync of the
// same release notices and repairs, never a statement naming files that
// are not there.
func install(to string, p *published, rec Record) error {
	for _, f := range []struct {
		suffix string
		data   []byte
	}{{"", p.lock}, {BundleSuffix, p.bundle}, {ReleaseSuffix, p.release}, {RecordSuffix, indentJSON(rec)}} {
		path := to + f.suffix
		if err := secureFile(path); err != nil && !missing(err) {
			return err
		}
		if err := statefile.WriteAtomic(path, f.data, statefile.WriteOptions{Perm: 0o644, Exact: true, Sync: true}); err != nil {
			return fmt.Errorf("installing %s: %w", quote(path), err)
		}
	}
	return nil
}
