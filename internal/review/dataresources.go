package review

import (
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// DataResources reports whether the definitional findings among fs of locked
// against observed are only resources that look like data the server lists
// live: one per table or row (server-postgres lists one resource per table,
// so `create table` adds one). Every finding must be a resource whose URI is
// a sibling of another one (an added URI: of a locked one): same scheme and
// authority, same number of path segments, exactly one segment different.
// Tools, prompts, templates, instructions or anything else changing makes
// it false, as does a resource of its own shape. It is a hint for people
// (policy.unpinned: ["resources"]), never a verdict.
func DataResources(fs []lockfile.Finding, locked, observed *lockfile.Server) bool {
	if len(fs) == 0 || locked == nil {
		return false
	}
	lockedURIs := uris(locked)
	all := append(append([]string{}, lockedURIs...), uris(observed)...)
	n := 0
	for _, f := range fs {
		if f.Class != lockfile.Definitional {
			continue // informational drift is allowed anyway
		}
		n++
		if f.Kind != lockfile.KindResource || f.Name == "" {
			return false
		}
		among := all
		if f.Change == lockfile.Added {
			among = lockedURIs
		}
		if !hasSibling(f.Name, among) {
			return false
		}
	}
	return n > 0
}

// uris are the keys (URIs) of s's resources.
func uris(s *lockfile.Server) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, it := range s.Items(lockfile.KindResource) {
		if k, err := lockfile.ItemKey(lockfile.KindResource, it); err == nil {
			out = append(out, k)
		}
	}
	return out
}

func hasSibling(uri string, among []string) bool {
	for _, o := range among {
		if o != uri && siblings(uri, o) {
			return true
		}
	}
	return false
}

// siblings reports whether URIs a and b differ in exactly one path segment
// after the same scheme and authority.
func siblings(a, b string) bool {
	ha, pa, ok1 := splitURI(a)
	hb, pb, ok2 := splitURI(b)
	if !ok1 || !ok2 || ha != hb || len(pa) != len(pb) {
		return false
	}
	diff := 0
	for i := range pa {
		if pa[i] != pb[i] {
			diff++
		}
	}
	return diff == 1
}

// splitURI splits a URI into its scheme and authority ("postgres://h") and
// its path segments; ok is false without a scheme.
func splitURI(u string) (head string, segs []string, ok bool) {
	i := strings.Index(u, ":")
	if i <= 0 {
		return "", nil, false
	}
	head, rest := u[:i+1], u[i+1:]
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		j := strings.Index(rest, "/")
		if j < 0 {
			return "", nil, false // an authority alone: no row to tell apart
		}
		head, rest = head+"//"+rest[:j], rest[j+1:]
	}
	return head, strings.Split(rest, "/"), true
}

// UnpinnedHint is the next step when DataResources is true: how to declare
// server name's resources data in the lockfile at path (the edit
// docs/lockfile-format.md describes; mcpsum never writes policy itself).
func UnpinnedHint(name, path string) string {
	return fmt.Sprintf(`only resources shaped like the locked ones (one per table or row) changed; if they are data the server lists live, declare them so: add "unpinned": ["resources"] to the "policy" of server %q in %s (see "policy.unpinned" in docs/lockfile-format.md)`, name, path)
}

// DataShaped reports whether a locked server's resources look like data
// listed live, before any drift: at least two, each a sibling of another
// (one per table or row, as DataResources reads siblings). suggest-policy
// mentions policy.unpinned for such a server; it is never applied.
func DataShaped(s *lockfile.Server) bool {
	us := uris(s)
	if len(us) < 2 {
		return false
	}
	for _, u := range us {
		if !hasSibling(u, us) {
			return false
		}
	}
	return true
}
