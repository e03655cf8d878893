package pkgspec

import (
	"strings"
)

// npmName is a registry package name as npm accepts it (validate-npm-package-name,
// legacy capitals included): an optional @scope/ and a name, URL-safe, not
// starting with '.', '_' or '-'. A local path (./x, /x, ../x), a tarball, a
// git URL or GitHub shorthand (user/repo), and anything shaped like an
// option is not one.
var npmName = &lazyRegexp{expr: `^(@[A-Za-z0-9~][A-Za-z0-9~._-]*/)?[A-Za-z0-9~][A-Za-z0-9~._-]*$`}

// NPMName reports whether name is an npm registry package name.
func NPMName(name string) bool {
	return len(name) <= 214 && npmName.get().MatchString(name)
}

// PyPIName reports whether name is a PyPI project name (PEP 508: letters,
// digits, '.', '_', '-', starting and ending with a letter or digit).
func PyPIName(name string) bool {
	return pypiName.get().MatchString(name) && !strings.ContainsAny(name[len(name)-1:], "._-")
}

// NormalPyPI is a PyPI name as the index compares it (PEP 503): lower case,
// every run of '-', '_' and '.' one '-'.
func NormalPyPI(name string) string {
	return pep503.get().ReplaceAllString(strings.ToLower(name), "-")
}

// NormalNPMVersion is an exact npm version as the registry knows it
// (semver.clean): without a leading 'v' and without build metadata, which
// npm ignores ("v1.0.0", "1.0.0" and "1.0.0+build" are one version).
func NormalNPMVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	return v
}

// pep440 is the PEP 440 version grammar (packaging's VERSION_PATTERN),
// matched case-insensitively.
var pep440 = &lazyRegexp{expr: `^(?i)v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*)` +
	`(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?([0-9]+)?)?` +
	`(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?` +
	`(?:[-_.]?(dev)[-_.]?([0-9]+)?)?` +
	`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`}

// NormalPyPIVersion is a PEP 440 version in the form the index compares
// (packaging's canonicalize_version): "1.0", "1.0.0" and "v1.0" are one
// version ("1"), "1.0RC1" is "1rc1". ok is false for what is not a PEP 440
// version.
func NormalPyPIVersion(v string) (string, bool) {
	m := pep440.get().FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	var b strings.Builder
	if e := num(m[1]); e != "0" {
		b.WriteString(e + "!")
	}
	rel := strings.Split(m[2], ".")
	for i := range rel {
		rel[i] = num(rel[i])
	}
	for len(rel) > 1 && rel[len(rel)-1] == "0" {
		rel = rel[:len(rel)-1]
	}
	b.WriteString(strings.Join(rel, "."))
	if m[3] != "" {
		b.WriteString(map[string]string{"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}[strings.ToLower(m[3])] + num(m[4]))
	}
	if m[5] != "" || m[6] != "" {
		b.WriteString(".post" + num(m[5]+m[7]))
	}
	if m[8] != "" {
		b.WriteString(".dev" + num(m[9]))
	}
	if m[10] != "" {
		b.WriteString("+" + pep503.get().ReplaceAllString(strings.ToLower(m[10]), "."))
	}
	return b.String(), true
}

// num is a decimal number without leading zeros ("" is 0).
func num(s string) string {
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return s
}

// NormalImage is an OCI image name as Docker resolves it: the registry
// host lower-cased ("docker.io" when the name has none, and for
// index.docker.io), "library/" before a Docker Hub name of one component,
// and without a tag (an image pinned by digest is that digest whatever tag
// is written beside it).
func NormalImage(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i:], "/") {
		name = name[:i] // a tag (a registry's :port is followed by '/')
	}
	domain, rest, ok := strings.Cut(name, "/")
	if !ok || !strings.ContainsAny(domain, ".:") && domain != "localhost" {
		domain, rest = "docker.io", name
	}
	domain = strings.ToLower(domain)
	if domain == "index.docker.io" || domain == "registry-1.docker.io" {
		domain = "docker.io"
	}
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return domain + "/" + rest
}
