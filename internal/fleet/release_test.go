//go:build unix

package fleet

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
)

// refusedFor checks that err is a refusal for why, and that every
// installed file is as before.
func refusedFor(t *testing.T, o *org, err error, why string, before map[string]string) {
	t.Helper()
	var re *RefusedError
	if !errors.As(err, &re) || re.Why != why {
		t.Fatalf("sync: %v, want a refusal (%s)", err, why)
	}
	assertUnchanged(t, o, before)
}

// An organisation signs two org locks (eng, sales) with one key; a mirror
// serving sales' release, with a higher serial, to an eng machine is
// refused, on the first sync and over an installed eng release alike.
func TestSyncRefusesAnotherOrgLocksRelease(t *testing.T) {
	o := newOrg(t)
	valid, modern := testLock(t, "valid.lock"), testLock(t, "modern.lock")
	o.publishAs(PublishOptions{Name: "sales", Serial: 9}, modern, o.key)
	_, err := o.sync()
	refusedFor(t, o, err, WhyName, map[string]string{"": "", ReleaseSuffix: "", BundleSuffix: "", RecordSuffix: ""})
	if !strings.Contains(err.Error(), "release 9 is of the org lock sales, but") || !strings.Contains(err.Error(), "names eng") {
		t.Errorf("message: %v", err)
	}
	o.publish(valid, 2, o.key)
	if _, err := o.sync(); err != nil {
		t.Fatal(err)
	}
	before := o.installed()
	o.publishAs(PublishOptions{Name: "sales", Serial: 9}, modern, o.key)
	_, err = o.sync()
	refusedFor(t, o, err, WhyName, before)
	if !strings.Contains(before[ReleaseSuffix], `"name": "eng",`) {
		t.Errorf("the installed statement does not name its org lock:\n%s", before[ReleaseSuffix])
	}

	// status compares the installed release's name with the trust file's:
	// the machine moved to sales (its trust file edited) still enforces
	// eng's release until sync installs a sales one: drift, with the step.
	env := Env{Root: t.TempDir(), GOOS: "linux"}
	opts := emitOpts(o.to, ModeArgv)
	if st := Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env}); strings.Contains(strings.Join(st.Problems, "\n"), "trust file") {
		t.Errorf("status of the trusted release names the trust file: %q", st.Problems)
	}
	write(t, o.trust, []byte(`{"name": "sales", "signers": [{"name": "org-release", "key": "org.pub"}]}`+"\n"), 0o644)
	st := Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env})
	if !st.Drift || !strings.Contains(strings.Join(st.Problems, "\n"), "the installed release is of org lock eng, but the trust file") ||
		!strings.Contains(st.Text(), "names sales: run mcpsum fleet sync") {
		t.Errorf("status with a trust file naming another org lock: %+v\n%s", st, st.Text())
	}
	validateReport(t, st)
	// The step it names: sync installs sales' release (published above).
	if _, err := o.sync(); err != nil {
		t.Fatalf("fleet sync after the trust file moved to sales: %v", err)
	}
	if st := Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env}); st.Name == nil || *st.Name != "sales" || strings.Contains(strings.Join(st.Problems, "\n"), "trust file") {
		t.Errorf("status after the sync: %+v %q", st.Name, st.Problems)
	}
	// --trust names a file that is not there: a problem, not a silent pass.
	st = Status(StatusOptions{Lockfile: o.to, Trust: o.trust + ".elsewhere", Emit: opts, Env: env})
	if !st.Drift || !strings.Contains(strings.Join(st.Problems, "\n"), "no trust file") {
		t.Errorf("status with a missing --trust: %q", st.Problems)
	}
}

// A release expires (30 days by default): a mirror serving an old one,
// however validly signed, is refused once it has, with the next step; the
// installed release that expired is drift in status.
func TestSyncRefusesExpiredRelease(t *testing.T) {
	o := newOrg(t)
	valid := testLock(t, "valid.lock")
	start := time.Now()
	o.publish(valid, 2, o.key)
	raw := read(t, o.pub+"/fleet/org.lock"+ReleaseSuffix)
	r, err := ParseRelease(raw)
	must(t, err)
	if d := r.Expires.Sub(start); d < DefaultValidFor-time.Minute || d > DefaultValidFor+time.Minute {
		t.Errorf("a release without --valid-for expires after %v, want %v", d, DefaultValidFor)
	}
	if _, err := o.syncAt(start.Add(DefaultValidFor - time.Hour)); err != nil {
		t.Fatalf("sync before the expiry: %v", err)
	}
	before := o.installed()
	later := start.Add(DefaultValidFor + time.Hour)
	_, err = o.syncAt(later)
	refusedFor(t, o, err, WhyExpired, before)
	if !strings.Contains(err.Error(), "release 2 of eng expired at "+r.Expires.Format(time.RFC3339)) ||
		!strings.Contains(strings.Join(hint.Of(err), "\n"), "the organisation must release again: 'mcpsum fleet release --name eng --serial N'") {
		t.Errorf("message: %v %q", err, hint.Of(err))
	}

	env := Env{Root: t.TempDir(), GOOS: "linux"}
	opts := emitOpts(o.to, ModeArgv)
	st := Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env, Now: func() time.Time { return start }})
	if st.Expired || st.Expires == nil || !st.Expires.Equal(r.Expires) || st.Name == nil || *st.Name != "eng" {
		t.Errorf("status before the expiry: %+v", st)
	}
	st = Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env, Now: func() time.Time { return later }})
	if !st.Expired || !st.Drift || !strings.Contains(strings.Join(st.Problems, "\n"), "release 2 of eng expired at") || !strings.Contains(st.Text(), "EXPIRED at") {
		t.Errorf("status after the expiry: %+v\n%s", st, st.Text())
	}
	validateReport(t, st)

	// --valid-for: days or a Go duration, at most 366 days.
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "12h": 12 * time.Hour, "366d": MaxValidFor} {
		if d, err := ParseValidFor(in); err != nil || d != want {
			t.Errorf("ParseValidFor(%q) = %v, %v", in, d, err)
		}
	}
	for _, in := range []string{"0d", "-1h", "367d", "a while", ""} {
		if _, err := ParseValidFor(in); err == nil {
			t.Errorf("ParseValidFor(%q): no error", in)
		}
	}
}

// The rollback floor is the highest serial this machine installed, kept in
// the sync record too: removing a broken release statement (a reset) does
// not let an older release in. The trust file's minSerial holds a first
// sync to at least that release.
func TestRollbackFloorSurvivesReset(t *testing.T) {
	o := newOrg(t)
	valid, modern := testLock(t, "valid.lock"), testLock(t, "modern.lock")
	o.publish(valid, 5, o.key)
	if _, err := o.sync(); err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(o.to+ReleaseSuffix))
	before := o.installed()
	o.publish(modern, 3, o.key)
	_, err := o.sync()
	refusedFor(t, o, err, WhyRollback, before)
	if !strings.Contains(err.Error(), "older than release 5 this machine installed before (the sync record's highest serial") {
		t.Errorf("message: %v", err)
	}
	// Serial 5 naming another lock is still one serial, two locks.
	o.publish(modern, 5, o.key)
	_, err = o.sync()
	refusedFor(t, o, err, WhyEquivocation, before)
	o.publish(modern, 6, o.key)
	res, err := o.sync()
	if err != nil || res.Previous != 5 {
		t.Fatalf("sync of release 6 after the reset: %+v %v", res, err)
	}
	if rec, err := readRecord(o.to); err != nil || rec.Highest != 6 || rec.Name != "eng" {
		t.Fatalf("sync record: %+v %v", rec, err)
	}

	// minSerial: a fresh machine takes nothing older.
	fresh := newOrg(t)
	write(t, fresh.trust, []byte(`{"name": "eng", "minSerial": 10, "signers": [{"name": "org-release", "key": "org.pub"}]}`), 0o644)
	fresh.publish(valid, 9, fresh.key)
	_, err = fresh.sync()
	refusedFor(t, fresh, err, WhyRollback, map[string]string{"": "", ReleaseSuffix: "", BundleSuffix: "", RecordSuffix: ""})
	if !strings.Contains(err.Error(), "below") || !strings.Contains(err.Error(), "minSerial 10") {
		t.Errorf("message: %v", err)
	}
	fresh.publish(valid, 10, fresh.key)
	if _, err := fresh.sync(); err != nil {
		t.Fatalf("sync of the minSerial: %v", err)
	}
}

// An org lock others may write is one problem of the lock, not also one of
// the policies that name it.
func TestStatusReportsWritableLockOnce(t *testing.T) {
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 1, o.key)
	if _, err := o.sync(); err != nil {
		t.Fatal(err)
	}
	must(t, os.Chmod(o.to, 0o666))
	r := Status(StatusOptions{Lockfile: o.to, Emit: emitOpts(o.to, ModeArgv), Env: Env{Root: t.TempDir(), GOOS: "linux"}})
	if n := strings.Count(r.Text(), "writable by group or others"); n != 1 || !r.Drift {
		t.Errorf("status names the writable lock %d times, want once (drift %v):\n%s", n, r.Drift, r.Text())
	}
	if !strings.Contains(r.Text(), "chmod go-w") {
		t.Errorf("status does not name the chmod that fixes it:\n%s", r.Text())
	}
}
