package fleet

import (
	"context"
	"fmt"

	"github.com/mcpsum/mcpsum/internal/attestproto"
	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// PublishOptions say which lock to release under which serial.
type PublishOptions struct {
	Lockfile string
	Serial   int64
	Helper   attestproto.Client
	SignArgs []string     // the helper's sign flags (key, service URLs)
	Note     func(string) // the helper's notes for the user
}

// Publish writes the release statement of the lock at o.Lockfile with
// o.Serial beside it (LOCK.release.json) and signs it through the helper
// (LOCK.release.json.sigstore.json), after checking the lock's digests.
// The organisation serves the three files side by side; sync fetches them.
// It returns the statement.
func Publish(ctx context.Context, o PublishOptions) (Release, error) {
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
	r := Release{Serial: o.Serial, Lockfile: Digest(data)}
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
