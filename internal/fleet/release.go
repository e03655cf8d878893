package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The file names of a release, beside the lock they are about: ORG is
// published (and installed) with ORG.release.json, the statement, and
// ORG.release.json.sigstore.json, its Sigstore bundle.
const (
	ReleaseSuffix = ".release.json"
	BundleSuffix  = ReleaseSuffix + ".sigstore.json"
	// TrustSuffix names the trust file beside an installed lock.
	TrustSuffix = ".trust.json"
	// RecordSuffix names what sync last installed, beside the lock.
	RecordSuffix = ".sync.json"
)

// ReleaseFormat is the version of the release statement format.
const ReleaseFormat = 1

// Release is the signed statement that makes a lock an organisation's
// release: which org lock it is (its name: an organisation signing two
// org locks with one key must not have one served as the other), its
// serial, when it stops being valid (a mirror cannot hold a machine on an
// old release forever), and the digest of the lock's exact bytes. The
// signature covers these bytes, so the serial belongs to that lock alone.
type Release struct {
	Name     string
	Serial   int64
	Expires  time.Time // UTC, whole seconds
	Lockfile string    // "sha256:" + hex of the lock's bytes
}

// releaseMembers are the statement's members, in the order Marshal writes.
var releaseMembers = []string{"mcpsumRelease", "name", "serial", "expires", "lockfile"}

// Marshal is the statement as it is signed and published: deterministic,
// two-space indented, with a final newline.
func (r Release) Marshal() []byte {
	return fmt.Appendf(nil, "{\n  \"mcpsumRelease\": %d,\n  \"name\": %q,\n  \"serial\": %d,\n  \"expires\": %q,\n  \"lockfile\": %q\n}\n",
		ReleaseFormat, r.Name, r.Serial, r.Expires.UTC().Format(time.RFC3339), r.Lockfile)
}

// Expired reports whether the release is no longer valid at now.
func (r Release) Expired(now time.Time) bool { return !now.Before(r.Expires) }

// lockName is an org lock's release name (fleet release --name, the trust
// file's "name"): what the statement says it is for.
var lockName = &lazyRegexp{expr: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`}

// CheckName reports a release name that is not 1 to 64 letters, digits,
// '.', '_' or '-' (starting with a letter or digit).
func CheckName(n string) error {
	if !lockName.get().MatchString(n) {
		return fmt.Errorf("name %s: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", termtext.Quoted(n, 80))
	}
	return nil
}

// MaxValidFor is the longest a release may be valid: a machine a mirror
// holds on an old release learns of it within this time at most.
const MaxValidFor = 366 * 24 * time.Hour

// ParseValidFor reads fleet release's --valid-for: a number of days ("30d")
// or a Go duration ("720h", "90m"), positive and at most MaxValidFor.
func ParseValidFor(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(days) * 24 * time.Hour
		if days > 366 {
			d = MaxValidFor + 1
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 || d > MaxValidFor {
		return 0, usage("--valid-for %s: want a duration from 1s to 366d (\"30d\", \"12h\")", quote(s))
	}
	return d, nil
}

// Digest is the digest a release names for data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ParseRelease reads a release statement strictly: the five members and
// nothing else, each once, the format version this mcpsum knows, a name,
// a serial from 1 to 2^53-1, an expiry in RFC 3339 UTC and a SHA-256
// digest.
func ParseRelease(data []byte) (Release, error) {
	m, err := object(data, releaseMembers, true)
	if err != nil {
		return Release{}, fmt.Errorf("release statement: %v", err)
	}
	for _, k := range releaseMembers {
		if m[k] == nil {
			return Release{}, fmt.Errorf("release statement: no %q member", k)
		}
	}
	if v := string(m["mcpsumRelease"]); v != fmt.Sprint(ReleaseFormat) {
		return Release{}, fmt.Errorf("release statement: format %s, this mcpsum reads format %d: upgrade mcpsum", v, ReleaseFormat)
	}
	var r Release
	var ok bool
	if r.Name, ok = str(m["name"]); !ok || CheckName(r.Name) != nil {
		return Release{}, fmt.Errorf("release statement: name %s: want 1 to 64 letters, digits, '.', '_' or '-'", quoteValue(m["name"]))
	}
	if r.Expires, ok = expiry(m["expires"]); !ok {
		return Release{}, fmt.Errorf("release statement: expires %s: want a time as RFC 3339 in UTC, such as \"2027-01-31T12:00:00Z\"", quoteValue(m["expires"]))
	}
	if r.Serial, ok = serial(m["serial"]); !ok {
		return Release{}, fmt.Errorf("release statement: serial %s: want a whole number from 1 to %d", quoteValue(m["serial"]), maxSerial)
	}
	if r.Lockfile, ok = str(m["lockfile"]); !ok || !validDigest(r.Lockfile) {
		return Release{}, fmt.Errorf("release statement: lockfile %s: want \"sha256:\" and 64 lower-case hex digits", quoteValue(m["lockfile"]))
	}
	return r, nil
}

// expiry decodes v as a JSON string holding a time in RFC 3339, UTC, whole
// seconds: the one spelling Marshal writes.
func expiry(v []byte) (time.Time, bool) {
	s, ok := str(v)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil && t.UTC().Format(time.RFC3339) == s
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// quoteValue is a JSON value from a file, made safe for a message.
func quoteValue(v []byte) string { return termtext.Quoted(string(v), 80) }

// quote is a path or argument as a user may copy it into a shell.
var quote = termtext.ShellArg
