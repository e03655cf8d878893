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

// layers is the table of docs/architecture.md ("Layers"): a package of pkg/
// may import only packages of pkg/ in a strictly lower layer (and its own
// subpackages). Layer 1 are the leaves: they import no pkg/ package at all.
var layers = map[string]int{
	"pkg/attest": 1, "pkg/clientconfig": 1, "pkg/lockfile": 1, "pkg/mcpwire": 1,
	"pkg/oauth": 1, "pkg/sandbox": 1, "pkg/sumdb": 1,
	"pkg/pin": 2, "pkg/policy": 2, "pkg/review": 2, "pkg/sumlog": 2,
	"pkg/locker": 3, "pkg/proxy": 3, "pkg/show": 3,
	"pkg/importer": 4, "pkg/taintguard": 4, "pkg/verify": 4,
}

// floors are the layers inside one package of pkg/ (docs/architecture.md,
// "Inside a package"): a sub-package listed here imports, of its own
// package, only listed sub-packages on a lower floor (never the package
// above it), and one on floor 1 imports no pkg/ package at all. Every
// package under a pkg/ package's internal/ folder must be listed.
// The proxy's parts that own state under a lock of their own
// (pkg/proxy/doc.go) are on floor 1: they are handed what they need.
var floors = map[string]int{
	"pkg/proxy/internal/jsonline":  1,
	"pkg/proxy/internal/hookwait":  1,
	"pkg/proxy/internal/idmap":     1,
	"pkg/proxy/internal/mrtrstate": 1,
	"pkg/proxy/internal/rootshold": 1,
	"pkg/proxy/internal/subs":      1,
	"pkg/proxy/internal/tasktable": 1,
	"pkg/proxy/internal/upstream":  2,
	"pkg/proxy":                    3,
}

// forbidden are edges the layers would allow that the docs rule out.
var forbidden = map[string][]string{
	"pkg/proxy": {"pkg/policy"}, // a policy reaches the proxy through Hooks (pkg/taintguard)
}

// onlyFrom are packages that one binary alone may link.
var onlyFrom = map[string]string{
	"pkg/attest": "cmd/mcpsum-attest", // sigstore-go stays out of mcpsum
	"pkg/sumlog": "cmd/mcpsum-log",    // the log operator's side
}

// internalBase are the internal packages every other internal package may
// import; they import nothing of mcpsum themselves.
var internalBase = []string{"internal/mcpspec", "internal/termtext"}

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
		if strings.HasPrefix(pkg, "pkg/") && strings.Contains(pkg, "/internal/") {
			if _, ok := floors[pkg]; !ok {
				t.Errorf("%s is on no floor: add it to docs/architecture.md and to the floors of this test", pkg)
			}
		}
		if strings.HasPrefix(pkg, "pkg/") {
			if _, ok := layers[top(pkg)]; !ok {
				t.Errorf("%s is in no layer: add it to docs/architecture.md and to the table of this test", top(pkg))
			}
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
	switch {
	case strings.HasPrefix(pkg, "internal/"):
		if !strings.HasPrefix(dep, "internal/") {
			return "internal/ helpers import no pkg/ package"
		}
		if slices.Contains(internalBase, pkg) {
			return pkg + " imports nothing of mcpsum"
		}
		if !slices.Contains(internalBase, dep) {
			return "an internal/ helper imports only " + strings.Join(internalBase, " and ")
		}
	case strings.HasPrefix(pkg, "pkg/") && strings.HasPrefix(dep, "pkg/"):
		if fp, ok := floors[pkg]; ok {
			fd, dok := floors[dep]
			switch {
			case top(pkg) == top(dep) && !dok:
				return "a sub-package on a floor imports only sub-packages on a floor"
			case top(pkg) == top(dep) && fd >= fp:
				return "a sub-package imports only lower floors of its package"
			case top(pkg) != top(dep) && fp == 1:
				return "a sub-package on floor 1 imports no pkg/ package"
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
			return "a leaf imports no pkg/ package"
		case ld >= lp:
			return "pkg/ packages import only lower layers"
		}
	}
	return ""
}

// top is the package's folder right under pkg/ (pkg/attest/attesttest → pkg/attest).
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
