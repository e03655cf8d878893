//go:build unix

package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A served org lock, synced: installed 0644 with its signed release; the
// same serial again changes nothing (not even a file's time); every
// refusal the issue names leaves every installed file as it was; an edited
// installed lock is repaired by the next sync of its release; a higher
// serial replaces it.
func TestSyncServedOrgLock(t *testing.T) {
	o := newOrg(t)
	valid, modern := testLock(t, "valid.lock"), testLock(t, "modern.lock")
	o.publish(valid, 2, o.key)
	res, err := o.sync()
	if err != nil {
		t.Fatalf("first sync: %v", err)
	}
	if !res.Changed || res.Serial != 2 || res.Previous != 0 || res.Signer != "org-release" {
		t.Fatalf("first sync: %+v", res)
	}
	if got := read(t, o.to); !bytes.Equal(got, valid) {
		t.Fatalf("installed lock differs from the published one")
	}
	for _, s := range []string{"", ReleaseSuffix, BundleSuffix, RecordSuffix} {
		fi, err := os.Stat(o.to + s)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v, want 0644", o.to+s, err, fi.Mode())
		}
	}
	rec, err := readRecord(o.to)
	if err != nil || rec.Serial != 2 || rec.Signer != "org-release" || rec.From != o.url || rec.Lockfile != Digest(valid) {
		t.Fatalf("sync record: %+v %v", rec, err)
	}

	// The same serial again: nothing written.
	before := o.installed()
	fi0, _ := os.Stat(o.to)
	if res, err = o.sync(); err != nil || res.Changed || res.Serial != 2 {
		t.Fatalf("second sync of serial 2: %+v %v", res, err)
	}
	if fi1, _ := os.Stat(o.to); !os.SameFile(fi0, fi1) { // a rewrite renames a new file into place
		t.Errorf("the second sync of the same serial rewrote %s", o.to)
	}
	assertUnchanged(t, o, before)

	tampered := bytes.Replace(valid, []byte("Get current time"), []byte("Get current time and mail it to evil.example"), 1)
	if bytes.Equal(tampered, valid) {
		t.Fatal("tamper did not apply")
	}
	for _, tc := range []struct {
		name    string
		publish func()
		why     string
	}{
		{"lower serial", func() { o.publish(valid, 1, o.key) }, WhyRollback},
		{"unknown signer", func() { o.publish(modern, 3, o.stranger) }, WhySigner},
		{"same serial, other lock", func() { o.publish(modern, 2, o.key) }, WhyEquivocation},
		{"lock swapped after signing", func() {
			o.publish(modern, 3, o.key)
			write(t, filepath.Join(o.pub, "fleet", "org.lock"), valid, 0o644)
		}, WhyMismatch},
		{"lock that does not match its digests", func() { o.publishUnchecked(tampered, 3, o.key) }, WhyLock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.publish()
			res, err := o.sync()
			var re *RefusedError
			if !errors.As(err, &re) || re.Why != tc.why {
				t.Fatalf("sync: %+v %v, want a refusal (%s)", res, err, tc.why)
			}
			if !strings.Contains(err.Error(), "the installed lock is unchanged") {
				t.Errorf("message does not say the lock is unchanged: %v", err)
			}
			assertUnchanged(t, o, before)
		})
	}

	// An edited installed lock: the same release repairs it.
	o.publish(valid, 2, o.key)
	write(t, o.to, tampered, 0o644)
	if res, err = o.sync(); err != nil || !res.Changed || !res.Repaired {
		t.Fatalf("sync over an edited lock: %+v %v", res, err)
	}
	if after := o.installed(); after[""] != before[""] || !strings.Contains(after[ReleaseSuffix], `"serial": 2,`) {
		t.Error("the repair did not reinstall the lock of release 2")
	}

	// A higher serial replaces it.
	o.publish(modern, 5, o.key)
	if res, err = o.sync(); err != nil || !res.Changed || res.Serial != 5 || res.Previous != 2 {
		t.Fatalf("sync of serial 5: %+v %v", res, err)
	}
	if !bytes.Equal(read(t, o.to), modern) {
		t.Error("serial 5 did not install its lock")
	}
}

func assertUnchanged(t *testing.T, o *org, before map[string]string) {
	t.Helper()
	for s, b := range o.installed() {
		if b != before[s] {
			t.Errorf("%s changed", o.to+s)
		}
	}
}

// The trust file and the folder of the lock are the organisation's word on
// this machine: one others may write is refused before anything is
// fetched, as is a missing trust file.
func TestSyncRefusesInsecureTrust(t *testing.T) {
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 1, o.key)
	if err := os.Chmod(o.trust, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("sync with a world-writable trust file: %v", err)
	}
	if err := os.Chmod(o.trust, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(o.to), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("sync into a world-writable folder: %v", err)
	}
	if err := os.Chmod(filepath.Dir(o.to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(o.trust); err != nil {
		t.Fatal(err)
	}
	if _, err := o.sync(); err == nil || !strings.Contains(err.Error(), "no trust file") {
		t.Fatalf("sync without a trust file: %v", err)
	}
	if _, err := os.Stat(o.to); !os.IsNotExist(err) {
		t.Errorf("a refused sync installed %s", o.to)
	}
}

// fleet status --json validates against the schema docs/ publishes, for an
// installed org lock with a client's policy in place and drifted, and for a
// machine with nothing installed.
func TestStatusJSONSchema(t *testing.T) {
	o := newOrg(t)
	o.publish(testLock(t, "valid.lock"), 3, o.key)
	if _, err := o.sync(); err != nil {
		t.Fatal(err)
	}
	env := Env{Root: t.TempDir(), GOOS: "linux"}
	opts := emitOpts(o.to, ModeArgv)
	c, _ := ClientByName("gemini")
	policy, _ := c.Emit(entries(t, testLock(t, "valid.lock"), opts), ModeArgv)
	if _, err := c.Install(policy, opts, env); err != nil {
		t.Fatal(err)
	}
	s := statusSchema(t)
	for _, r := range []*Report{
		Status(StatusOptions{Lockfile: o.to, Emit: opts, Required: []string{"gemini"}, Env: env}),
		Status(StatusOptions{Lockfile: filepath.Join(t.TempDir(), "none.lock"), Emit: opts, Env: env}),
	} {
		b, err := json.Marshal(r)
		must(t, err)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		must(t, err)
		if err := s.Validate(inst); err != nil {
			t.Errorf("status JSON does not validate against docs/fleet-status.schema.json: %v\n%s", err, b)
		}
	}
	r := Status(StatusOptions{Lockfile: o.to, Emit: opts, Required: []string{"gemini"}, Env: env})
	if r.Drift || r.Serial == nil || *r.Serial != 3 || r.Signer == nil || *r.Signer != "org-release" || r.Synced == nil {
		t.Errorf("status of a synced lock with gemini's policy in place: %+v", r)
	}
	// An edited lock is drift: it is no longer the release's.
	write(t, o.to, testLock(t, "modern.lock"), 0o644)
	if r = Status(StatusOptions{Lockfile: o.to, Emit: opts, Env: env}); !r.Drift || !strings.Contains(strings.Join(r.Problems, "\n"), "changed after fleet sync installed it") {
		t.Errorf("status of an edited lock: %+v", r.Problems)
	}
}

// validateReport checks r's JSON against docs/fleet-status.schema.json.
func validateReport(t *testing.T, r *Report) {
	t.Helper()
	b, err := json.Marshal(r)
	must(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	must(t, err)
	if err := statusSchema(t).Validate(inst); err != nil {
		t.Errorf("status JSON does not validate against docs/fleet-status.schema.json: %v\n%s", err, b)
	}
}

func statusSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return compileSchema(t, filepath.Join("..", "..", "docs", "fleet-status.schema.json"), "")
}
