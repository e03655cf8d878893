package pkgspec

import (
	"strings"

	"golang.org/x/mod/module"
)

// Pin is a registry package at an exact version read from a command line:
// what anyone can fetch and run identically.
type Pin struct {
	Index     int    // argv index of the package spec
	Ecosystem string // "npm", "pypi", "go" or "oci"
	Package   string // npm/PyPI name, Go module path, OCI image name
	Version   string // exact version; for oci the digest "sha256:<hex>"
}

// Name is the pin as ECOSYSTEM/PACKAGE@VERSION ("npm/@scope/pkg@1.2.3").
func (p Pin) Name() string {
	return p.Ecosystem + "/" + p.Package + "@" + p.Version
}

var (
	goVersion = &lazyRegexp{expr: `^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`}
	ociDigest = &lazyRegexp{expr: `^sha256:[0-9a-f]{64}$`}
	pypiName  = &lazyRegexp{expr: `^[A-Za-z0-9][A-Za-z0-9._-]*$`}
	pep503    = &lazyRegexp{expr: `[-_.]+`} // PyPI names compare normalised (PEP 503)
)

// Program is argv[0]'s base name, lower-cased, without .cmd or .exe: the
// launcher whatever folder it was found in.
func Program(argv0 string) string {
	prog := argv0
	if i := strings.LastIndexAny(prog, `/\`); i >= 0 {
		prog = prog[i+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(prog), ".cmd"), ".exe")
}

// FindPinned reads the exactly pinned registry package of a command line:
// `npx`/`bunx` pkg@1.2.3, `uvx` pkg==1.2.3 (or pkg@1.2.3), `go run`
// mod@v1.2.3, and `docker`/`podman run` image@sha256:…. Anything else (a
// range, a tag, a local path, a package from another index or registry,
// another program) has no pin. The pin is in normal form, one spelling per
// package version: npm versions without 'v' or build metadata, PyPI names
// (PEP 503) and versions (PEP 440) normalised, image names as Docker
// resolves them.
func FindPinned(argv []string) (Pin, bool) {
	if len(argv) < 2 {
		return Pin{}, false
	}
	switch Program(argv[0]) {
	case "npx", "bunx":
		i := npmSpecIndex(argv)
		if i < 0 {
			return Pin{}, false
		}
		name, version := splitNPM(argv[i])
		if !exactSemver.get().MatchString(version) || !NPMName(name) || otherSource(argv, npmSourceFlags) {
			return Pin{}, false
		}
		return Pin{Index: i, Ecosystem: "npm", Package: name, Version: NormalNPMVersion(version)}, true
	case "uvx":
		i := uvSpecIndex(argv)
		if i < 0 || otherSource(argv, uvSourceFlags) {
			return Pin{}, false
		}
		name, version, ok := uvExact(argv[i])
		if !ok || !PyPIName(name) { // extras ([cli]) change what runs: no pin
			return Pin{}, false
		}
		return Pin{Index: i, Ecosystem: "pypi", Package: NormalPyPI(name), Version: version}, true
	case "go":
		if argv[1] != "run" {
			return Pin{}, false
		}
		for i := 2; i < len(argv); i++ {
			if strings.HasPrefix(argv[i], "-") {
				continue
			}
			mod, version, ok := strings.Cut(argv[i], "@")
			if !ok || module.CheckImportPath(mod) != nil || !goVersion.get().MatchString(version) {
				return Pin{}, false // a local package (./cmd/srv) has no import path
			}
			return Pin{Index: i, Ecosystem: "go", Package: mod, Version: version}, true
		}
	case "docker", "podman":
		if argv[1] != "run" {
			return Pin{}, false
		}
		if i := imageIndex(argv); i > 0 {
			image, digest, ok := strings.Cut(argv[i], "@")
			if ok && image != "" && !strings.HasPrefix(image, "-") && ociDigest.get().MatchString(digest) {
				return Pin{Index: i, Ecosystem: "oci", Package: NormalImage(image), Version: digest}, true
			}
		}
	}
	return Pin{}, false
}

// runValueFlags are `docker run` options whose value is the next argument.
var runValueFlags = map[string]bool{
	"-e": true, "--env": true, "--env-file": true, "-v": true, "--volume": true,
	"--mount": true, "--name": true, "-p": true, "--publish": true, "--network": true,
	"--entrypoint": true, "-w": true, "--workdir": true, "-u": true, "--user": true,
	"-l": true, "--label": true, "--platform": true, "--pull": true, "-h": true,
	"--hostname": true, "--add-host": true, "--cap-add": true, "--cap-drop": true,
	"--security-opt": true, "--tmpfs": true, "--memory": true, "-m": true, "--cpus": true,
}

// imageIndex finds the image of `docker run [OPTIONS] IMAGE …` (-1 if none).
func imageIndex(argv []string) int {
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case runValueFlags[a]:
			i++
		case strings.HasPrefix(a, "-"):
			continue
		default:
			return i
		}
	}
	return -1
}

// npmSourceFlags and uvSourceFlags fetch the package from somewhere other
// than the public registry (or add local code): the name then says nothing
// about what runs, so the command has no pin.
var (
	npmSourceFlags = []string{"--registry"}
	uvSourceFlags  = []string{"--index-url", "-i", "--index", "--extra-index-url", "--default-index",
		"--find-links", "-f", "--no-index", "--with-editable", "--with-requirements"}
)

// otherSource reports whether argv passes one of flags (alone or as
// flag=value).
func otherSource(argv []string, flags []string) bool {
	for _, a := range argv[1:] {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// uvExact reads uvx's exact forms, pkg==VERSION and pkg@VERSION, with the
// version in normal form; ok is false for anything else (a range, latest).
func uvExact(spec string) (name, version string, ok bool) {
	name, v, found := strings.Cut(spec, "==")
	if !found {
		if name, v, found = strings.Cut(spec, "@"); !found || v == "latest" {
			return "", "", false
		}
	}
	if strings.HasPrefix(v, "=") { // === is arbitrary equality, not a version
		return "", "", false
	}
	version, ok = NormalPyPIVersion(v)
	return name, version, ok
}
