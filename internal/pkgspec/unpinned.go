package pkgspec

import (
	"strings"
)

// Unpinned is a package a launcher (npx, bunx, uvx) resolves afresh at each
// start because the command line names no exact version.
type Unpinned struct {
	Index     int    // argv index of the package spec
	Spec      string // as written: "@scope/pkg", "pkg@latest", "pkg>=1"
	Package   string // the name alone
	Ecosystem string // "npm" or "PyPI"
	// Lookup is the package manager's own command that prints the version it
	// would fetch now (mcpsum runs it only when asked, --resolve-versions).
	Lookup []string
}

// Pinned is the spec to write instead, for version.
func (u *Unpinned) Pinned(version string) string {
	if u.Ecosystem == "PyPI" {
		return u.Package + "==" + version
	}
	return u.Package + "@" + version
}

// PinnedArgv is argv with the spec replaced by its pinned form.
func (u *Unpinned) PinnedArgv(argv []string, version string) []string {
	out := append([]string(nil), argv...)
	out[u.Index] = u.Pinned(version)
	return out
}

var (
	exactSemver = &lazyRegexp{expr: `^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`}
	exactPyPI   = &lazyRegexp{expr: `^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?==[0-9A-Za-z.!+-]+$`}
)

// FindUnpinned returns the unpinned package of an npx/bunx/uvx command line,
// or nil when the package is pinned to an exact version, is not a registry
// package name (a local path, a URL, something shaped like an option: its
// Lookup would hand it to npm or pip as an argument), or the command is
// not one of those launchers.
func FindUnpinned(argv []string) *Unpinned {
	if len(argv) < 2 {
		return nil
	}
	switch Program(argv[0]) {
	case "npx", "bunx":
		i := npmSpecIndex(argv)
		if i < 0 {
			return nil
		}
		name, version := splitNPM(argv[i])
		if exactSemver.get().MatchString(version) || !NPMName(name) {
			return nil // pinned, or not a registry package (a path, a URL, an option)
		}
		return &Unpinned{Index: i, Spec: argv[i], Package: name, Ecosystem: "npm",
			Lookup: []string{"npm", "view", name + "@" + orLatest(version), "version"}}
	case "uvx":
		i := uvSpecIndex(argv)
		if i < 0 {
			return nil
		}
		spec := argv[i]
		if _, _, exact := uvExact(spec); exact || exactPyPI.get().MatchString(spec) {
			return nil
		}
		name := spec
		if j := strings.IndexAny(spec, "=<>!~@[ ;"); j > 0 {
			name = spec[:j]
		}
		if !PyPIName(name) {
			return nil // not a registry package (a path, a URL, an option)
		}
		return &Unpinned{Index: i, Spec: spec, Package: name, Ecosystem: "PyPI",
			Lookup: []string{"pip", "index", "versions", name}}
	}
	return nil
}

func orLatest(v string) string {
	if v == "" {
		return "latest"
	}
	return v
}

// npmSpecIndex finds the package of `npx [-y] [--package=P | -p P] pkg …`.
func npmSpecIndex(argv []string) int {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-p" || a == "--package":
			if i+1 < len(argv) {
				return i + 1
			}
			return -1
		case strings.HasPrefix(a, "--package="):
			return -1 // spec and flag share one argument; leave it to a person
		case a == "--":
			if i+1 < len(argv) {
				return i + 1
			}
			return -1
		case strings.HasPrefix(a, "-"):
			continue
		default:
			return i
		}
	}
	return -1
}

// uvValueFlags are uvx options whose value is the next argument.
var uvValueFlags = map[string]bool{
	"--python": true, "-p": true, "--with": true, "--index-url": true, "-i": true, "--index": true,
	"--extra-index-url": true, "--default-index": true, "--find-links": true, "-f": true,
	"--with-editable": true, "--with-requirements": true,
}

// uvSpecIndex finds the package of `uvx [--from SPEC] pkg …`.
func uvSpecIndex(argv []string) int {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--from":
			if i+1 < len(argv) {
				return i + 1
			}
			return -1
		case uvValueFlags[a]:
			i++ // flags with a value
		case strings.HasPrefix(a, "-"):
			continue
		default:
			return i
		}
	}
	return -1
}

// splitNPM splits "@scope/name@1.2.3" into name and version ("" if none).
func splitNPM(spec string) (name, version string) {
	at := strings.LastIndexByte(spec, '@')
	if at <= 0 {
		return spec, ""
	}
	return spec[:at], spec[at+1:]
}
