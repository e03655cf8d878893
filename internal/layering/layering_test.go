package layering

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpsum/mcpsum/"

// public are the packages of pkg/: the API a user may import, each with a
// package doc that says what is stable (docs/architecture.md, "The public
// API"). pkg/ holds nothing else; the application lives under internal/.
var public = []string{"pkg/lockfile", "pkg/sumdb"}

// layers is the table of docs/architecture.md ("Layers"): an application
// package (the public ones included) may import only application packages in
// a strictly lower layer (and its own subpackages). Layer 1 are the leaves:
// they import no application package at all. Every other package under
// internal/ is a helper.
var layers = map[string]int{
	"internal/attest": 1, "internal/clientconfig": 1, "pkg/lockfile": 1, "internal/mcpwire": 1,
	"internal/oauth": 1, "internal/sandbox": 1, "pkg/sumdb": 1,
	"internal/launch": 2, "internal/policy": 2, "internal/review": 2, "internal/sumlog": 2,
	"internal/locker": 3, "internal/proxy": 3, "internal/show": 3, "internal/fleet": 3,
	"internal/importer": 4, "internal/taintguard": 4, "internal/verify": 4,
	"internal/serve": 5,
}

// floors are the layers inside one application package (docs/architecture.md,
// "Inside a package"): a sub-package listed here imports, of its own
// package, only listed sub-packages on a lower floor (never the package
// above it), and one on floor 1 imports no application package at all.
// Every package under an application package's internal/ folder must be
// listed. The proxy's parts that own state under a lock of their own
// (internal/proxy/doc.go) are on floor 1: they are handed what they need.
var floors = map[string]int{
	"internal/proxy/internal/jsonline":  1,
	"internal/proxy/internal/hookwait":  1,
	"internal/proxy/internal/idmap":     1,
	"internal/proxy/internal/mrtrstate": 1,
	"internal/proxy/internal/rootshold": 1,
	"internal/proxy/internal/subs":      1,
	"internal/proxy/internal/tasktable": 1,
	"internal/proxy/internal/upstream":  2,
	"internal/proxy":                    3,
}

// forbidden are edges the layers would allow that the docs rule out.
var forbidden = map[string][]string{
	"internal/proxy": {"internal/policy"}, // a policy reaches the proxy through Hooks (internal/taintguard)
}

// onlyFrom are packages that one binary alone may link.
var onlyFrom = map[string]string{
	"internal/attest": "cmd/mcpsum-attest", // sigstore-go stays out of mcpsum
	"internal/sumlog": "cmd/mcpsum-log",    // the log operator's side
}

// helperBase are the helpers every other helper may import; each imports
// of mcpsum only the base helpers listed before it (hint, mcpspec and
// termtext nothing at all).
var helperBase = []string{"internal/hint", "internal/mcpspec", "internal/termtext", "internal/fileperm"}

// helperDeps are the helpers a helper builds on beyond the base ones: the
// serve replicas' state store speaks PostgreSQL through mcpsum's own client.
var helperDeps = map[string][]string{"internal/pgstate": {"internal/pgwire"}}

// standalone are helpers that import no package of mcpsum at all (the
// PostgreSQL client: a protocol, nothing of mcpsum's).
var standalone = []string{"internal/pgwire"}

func TestLayering(t *testing.T) {
	root := moduleRoot(t)
	imports := map[string][]string{} // package (relative to the module) → its mcpsum imports
	for _, top := range []string{"cmd", "pkg", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			for _, goos := range []string{"linux", "darwin", "windows"} {
				ctx := build.Default
				ctx.GOOS = goos
				p, err := ctx.ImportDir(path, 0)
				if err != nil {
					continue // no Go files for this GOOS (or none at all)
				}
				for _, imp := range p.Imports { // product code only: test imports are not layering
					if dep, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(imports[rel], dep) {
						imports[rel] = append(imports[rel], dep)
					}
				}
				if _, ok := imports[rel]; !ok {
					imports[rel] = nil
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(imports) < 20 {
		t.Fatalf("found only %d packages under %s: not the mcpsum tree", len(imports), root)
	}
	for pkg := range floors {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("%s (on a floor of this test) is not in the tree", pkg)
		}
	}
	for pkg, deps := range imports {
		for _, dep := range deps {
			if why := violation(pkg, dep); why != "" {
				t.Errorf("%s imports %s: %s (docs/architecture.md)", pkg, dep, why)
			}
		}
		if !isHelper(pkg) && strings.Contains(strings.TrimPrefix(pkg, "internal/"), "/internal/") {
			if _, ok := floors[pkg]; !ok {
				t.Errorf("%s is on no floor: add it to docs/architecture.md and to the floors of this test", pkg)
			}
		}
		if strings.HasPrefix(pkg, "pkg/") && !slices.Contains(public, top(pkg)) {
			t.Errorf("%s is in pkg/, the public API, but not one of its packages %v: move it under internal/, or make it public on purpose (a package doc saying what is stable, docs/architecture.md, and the public list of this test)", pkg, public)
		}
	}
}

// violation says why pkg may not import dep ("" when it may).
func violation(pkg, dep string) string {
	if strings.HasPrefix(dep, "cmd/") {
		return "nothing imports a command"
	}
	if only, ok := onlyFrom[top(dep)]; ok && pkg != only && top(pkg) != top(dep) {
		return "only " + only + " links it"
	}
	if strings.HasPrefix(pkg, "cmd/") {
		return ""
	}
	if isHelper(pkg) {
		switch {
		case slices.Contains(standalone, top(pkg)) && top(dep) != top(pkg):
			return pkg + " imports no package of mcpsum"
		case slices.Contains(helperDeps[top(pkg)], top(dep)):
			return ""
		case !isHelper(dep):
			return "a helper imports no application package"
		case slices.Contains(helperBase, pkg):
			if i := slices.Index(helperBase, dep); i < 0 || i >= slices.Index(helperBase, pkg) {
				return pkg + " imports of mcpsum only the base helpers before it (" + strings.Join(helperBase, ", ") + ")"
			}
		case !slices.Contains(helperBase, dep):
			return "a helper imports only " + strings.Join(helperBase, " and ")
		}
		return ""
	}
	if isHelper(dep) {
		return "" // any application package may use the helpers
	}
	if fp, ok := floors[pkg]; ok {
		fd, dok := floors[dep]
		switch {
		case top(pkg) == top(dep) && !dok:
			return "a sub-package on a floor imports only sub-packages on a floor"
		case top(pkg) == top(dep) && fd >= fp:
			return "a sub-package imports only lower floors of its package"
		case top(pkg) != top(dep) && fp == 1:
			return "a sub-package on floor 1 imports no application package"
		}
	}
	if top(pkg) == top(dep) {
		return "" // a package and its own subpackages
	}
	if slices.Contains(forbidden[top(pkg)], top(dep)) {
		return "ruled out"
	}
	lp, lok := layers[top(pkg)]
	ld, dok := layers[top(dep)]
	switch {
	case !lok || !dok:
		return "" // reported once as a package in no layer
	case lp == 1:
		return "a leaf imports no application package"
	case ld >= lp:
		return "application packages import only lower layers"
	}
	return ""
}

// isHelper says whether pkg is an internal/ helper: under internal/ and not
// (inside) an application package of the layers table.
func isHelper(pkg string) bool {
	_, app := layers[top(pkg)]
	return strings.HasPrefix(pkg, "internal/") && !app
}

// top is the package's folder right under pkg/ or internal/
// (internal/attest/attesttest → internal/attest).
func top(pkg string) string {
	parts := strings.SplitN(pkg, "/", 3)
	if len(parts) < 2 {
		return pkg
	}
	return parts[0] + "/" + parts[1]
}

// moduleRoot finds the folder of mcpsum's go.mod above the test's folder;
// without the source tree (a Bazel sandbox) there is nothing to check.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(data), "module github.com/mcpsum/mcpsum\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no mcpsum source tree above the test (go.mod not found): nothing to check")
		}
		dir = parent
	}
}
