package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

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
// release: its serial, and the digest of the lock's exact bytes. The
// signature covers these bytes, so the serial belongs to that lock alone.
type Release struct {
	Serial   int64
	Lockfile string // "sha256:" + hex of the lock's bytes
}

// Marshal is the statement as it is signed and published: deterministic,
// two-space indented, with a final newline.
func (r Release) Marshal() []byte {
	return fmt.Appendf(nil, "{\n  \"mcpsumRelease\": %d,\n  \"serial\": %d,\n  \"lockfile\": %q\n}\n", ReleaseFormat, r.Serial, r.Lockfile)
}

// Digest is the digest a release names for data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ParseRelease reads a release statement strictly: the three members and
// nothing else, each once, the format version this mcpsum knows, a serial
// from 1 to 2^53-1 and a SHA-256 digest.
func ParseRelease(data []byte) (Release, error) {
	m, err := object(data, []string{"mcpsumRelease", "serial", "lockfile"}, true)
	if err != nil {
		return Release{}, fmt.Errorf("release statement: %v", err)
	}
	for _, k := range []string{"mcpsumRelease", "serial", "lockfile"} {
		if m[k] == nil {
			return Release{}, fmt.Errorf("release statement: no %q member", k)
		}
	}
	if v := string(m["mcpsumRelease"]); v != fmt.Sprint(ReleaseFormat) {
		return Release{}, fmt.Errorf("release statement: format %s, this mcpsum reads format %d: upgrade mcpsum", v, ReleaseFormat)
	}
	var r Release
	var ok bool
	if r.Serial, ok = serial(m["serial"]); !ok {
		return Release{}, fmt.Errorf("release statement: serial %s: want a whole number from 1 to %d", quoteValue(m["serial"]), maxSerial)
	}
	if r.Lockfile, ok = str(m["lockfile"]); !ok || !validDigest(r.Lockfile) {
		return Release{}, fmt.Errorf("release statement: lockfile %s: want \"sha256:\" and 64 lower-case hex digits", quoteValue(m["lockfile"]))
	}
	return r, nil
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
