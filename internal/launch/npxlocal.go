package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
)

// A locked `npx -y PKG@VER` run in a project whose node_modules already
// holds PKG at VER installs nothing: npx (libnpmexec) looks in the local
// tree first, and a package there whose name@version is the spec runs as it
// is. mcpsum's install (`npx --yes --package=PKG@VER -- true`) would then be
// a second npm start that does nothing but cost ~2 CPU-seconds before every
// start of the server, so it is skipped. What the install is for (installing
// is not starting: the server's start allowance never covers a download)
// still holds, since there is no download. The check is narrower than npx's
// own, never wider: exact versions only (no ranges or tags), only the top
// level of the project's node_modules, and not inside an npm workspace
// (whose root's tree npx would read instead). When it says no, mcpsum
// installs as before, and npx finds what it finds.

// exactVersion is a full semver version, as `npm install` pins one: a
// range, a tag or a loose form ("v1.2.3", "=1.2.3") is not one.
var exactVersion = &lazyRegexp{expr: `^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`}

// local reports whether npx run in dir finds every package of n installed in
// the project there at exactly its spec's version (see above).
func (n *npxRun) local(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	prefix := npmPrefix(dir)
	if prefix == "" || inWorkspace(prefix) {
		return false
	}
	for _, p := range n.packages {
		at := strings.LastIndexByte(p, '@')
		if at <= 0 {
			return false
		}
		name, version := p[:at], p[at+1:]
		if !exactVersion.get().MatchString(version) || !installedAt(filepath.Join(prefix, "node_modules", filepath.FromSlash(name)), name, version) {
			return false
		}
	}
	return true
}

// npmPrefix is npm's local prefix for dir: the nearest folder, dir or above,
// with a package.json file or a node_modules folder; "" when there is none
// (npm then uses dir, which has no node_modules).
func npmPrefix(dir string) string {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(filepath.Join(p, "package.json")); err == nil && fi.Mode().IsRegular() {
			return p
		}
		if fi, err := os.Stat(filepath.Join(p, "node_modules")); err == nil && fi.IsDir() {
			return p
		}
		if filepath.Dir(p) == p {
			return ""
		}
	}
}

// inWorkspace reports whether a folder above prefix has a package.json that
// may declare workspaces (npm then takes that folder as the local prefix if
// prefix is one of them); any mention of "workspaces" counts.
func inWorkspace(prefix string) bool {
	for p := filepath.Dir(prefix); ; p = filepath.Dir(p) {
		if b, err := os.ReadFile(filepath.Join(p, "package.json")); err == nil && bytes.Contains(b, []byte(`"workspaces"`)) {
			return true
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}

// installedAt reports whether the package folder pkg holds a package.json
// naming exactly name and version (what npm's tree calls name@version).
func installedAt(pkg, name, version string) bool {
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return false
	}
	f, err := jsonscan.Fields(b, "name", "version")
	if err != nil {
		return false
	}
	n, ok1 := jsonscan.String(f[0])
	v, ok2 := jsonscan.String(f[1])
	return ok1 && ok2 && n == name && v == version
}
