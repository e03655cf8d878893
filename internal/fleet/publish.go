package fleet

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// PublishOptions say which lock to release under which serial.
type PublishOptions struct {
	Lockfile string
	Name     string // which org lock this is (the trust file's "name" on the machines)
	Serial   int64
	ValidFor string // how long the release is valid, as --valid-for takes it ("" for DefaultValidFor)
	Now      func() time.Time
	Helper   attestproto.Client
	SignArgs []string     // the helper's sign flags (key, service URLs)
	Note     func(string) // the helper's notes for the user
}

// DefaultValidFor is how long a release is valid unless --valid-for says.
const DefaultValidFor = 30 * 24 * time.Hour

// Publish writes the release statement of the lock at o.Lockfile (its
// name, o.Serial, and an expiry o.ValidFor from now) beside it (LOCK.release.json) and signs it through the helper
// (LOCK.release.json.sigstore.json), after checking the lock's digests.
// The organisation serves the three files side by side; sync fetches them.
// It returns the statement.
func Publish(ctx context.Context, o PublishOptions) (Release, error) {
	if o.Name == "" {
		return Release{}, usage("fleet release needs --name ORGLOCK, the org lock's name (\"eng\"), as the machines' trust files name the one they install")
	}
	if err := CheckName(o.Name); err != nil {
		return Release{}, usage("--name: %v; it names the org lock (\"eng\", \"sales\"), as the machines' trust files do", err)
	}
	validFor := DefaultValidFor
	if o.ValidFor != "" {
		var err error
		if validFor, err = ParseValidFor(o.ValidFor); err != nil {
			return Release{}, err
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Serial < 1 || o.Serial > maxSerial {
		return Release{}, usage("--serial %d: want a whole number from 1 to %d, higher than the last release's", o.Serial, maxSerial)
	}
	data, err := lockfile.ReadFile(o.Lockfile)
	if err != nil {
		return Release{}, err
	}
	if _, err := lockfile.Parse(o.Lockfile, data); err != nil {
		return Release{}, err
	}
	r := Release{Name: o.Name, Serial: o.Serial, Expires: o.Now().Add(validFor).UTC().Truncate(time.Second), Lockfile: Digest(data)}
	stmt := r.Marshal()
	resp, err := o.Helper.Sign(ctx, stmt, o.SignArgs...)
	if resp != nil && o.Note != nil {
		for _, n := range resp.Notes {
			o.Note(n)
		}
	}
	if err != nil {
		return Release{}, err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{o.Lockfile + ReleaseSuffix, stmt}, {o.Lockfile + BundleSuffix, resp.Bundle}} {
		if err := statefile.WriteDerived(f.path, f.data, 0o644); err != nil {
			return Release{}, fmt.Errorf("writing %s: %w", quote(f.path), err)
		}
	}
	return r, nil
}
