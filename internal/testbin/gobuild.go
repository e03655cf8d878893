package testbin

//lint:file-ignore SA1019 runtime.GOROOT locates the toolchain that built the test, to build peers with it

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// GoBuild builds pkg into out with the toolchain that built the test, with
// flags before -o and the environment's cgo setting, as `go test` and `go
// vet` compiled the packages the program is made of: a main module's
// package compiled with another cgo setting (or -trimpath) is another entry
// in Go's build cache, so a program built differently from its tests
// compiles all of mcpsum's packages a second time in every run whose
// sources changed (~17 CPU-seconds in e2e's TestMain). With the tests'
// shared cache (SharedCacheEnv, as Run sets it) it builds into a folder
// there (cachedPath) and hard-links (or copies) the result to out: go
// build leaves a target whose build ID is current as it is, so a run whose
// sources did not change links nothing (linking is most of building a
// peer from a warm build cache: e2e's dozen binaries took ~20 CPU-seconds
// every run). out is a link of its own, so a later run that rebuilds the
// cached program never changes a file this run executes; a file lock per
// program keeps two runs from building it at once.
func GoBuild(out, pkg string, flags ...string) error {
	return goBuild(out, pkg, nil, flags)
}

// The settings of mcpsum's release-style builds (scripts/action/build.sh,
// scripts/pre-commit-hook.sh, scripts/release.sh): no cgo, no folder paths
// or VCS stamp in the binary.
var releaseEnv, releaseFlags = []string{"CGO_ENABLED=0"}, []string{"-trimpath", "-buildvcs=false"}

// GoBuildRelease is GoBuild with the settings mcpsum's own build scripts
// use (CGO_ENABLED=0 -trimpath -buildvcs=false): tests that run those
// scripts find the packages compiled, and measurements see the binary a
// user installs that way.
func GoBuildRelease(out, pkg string) error {
	return goBuild(out, pkg, releaseEnv, releaseFlags)
}

func goBuild(out, pkg string, env, flags []string) error {
	target := out
	if c := cachedPath(pkg, append(slices.Clone(env), flags...)); c != "" {
		if unlock, err := LockFile(c + ".lock"); err == nil {
			defer unlock()
			target = c
		}
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, append(append([]string{"build"}, flags...), "-o", target, pkg)...)
	cmd.Env = append(os.Environ(), env...)
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, o)
	}
	if target == out {
		return nil
	}
	if err := os.Link(target, out); err == nil {
		return nil
	}
	b, err := os.ReadFile(target)
	if err == nil {
		err = os.WriteFile(out, b, 0o755)
	}
	return err
}

// cachedPath is where GoBuild keeps pkg built with settings in the shared
// cache: mcpsum/testbin/<checkout>/<name>-<pkg and settings>, the checkout
// named after the folder of the go.mod above the working folder, for a
// package of that module; for a package of another module (an SDK's
// example server) mcpsum/testbin/modules/, shared by every checkout, since
// nothing of the checkout's folder goes into it, so a fresh clone links it
// again only when go.mod pins another version. "" when there is no shared
// cache or no go.mod.
func cachedPath(pkg string, settings []string) string {
	shared := os.Getenv(SharedCacheEnv)
	root := moduleRoot()
	if shared == "" || root == "" {
		return ""
	}
	r := sha256.Sum256([]byte(root))
	dir := filepath.Join(shared, "mcpsum", "testbin", hex.EncodeToString(r[:6]))
	if mod := modulePath(root); mod != "" && pkg != mod && !strings.HasPrefix(pkg, mod+"/") {
		dir = filepath.Join(shared, "mcpsum", "testbin", "modules")
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	p := sha256.Sum256([]byte(pkg + "\x00" + strings.Join(settings, "\x00")))
	return filepath.Join(dir, filepath.Base(pkg)+"-"+hex.EncodeToString(p[:6]))
}

// modulePath is the module path go.mod in root declares, or "".
func modulePath(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	return modfile.ModulePath(b)
}

// moduleRoot is the folder of the nearest go.mod at or above the working
// folder, or "".
func moduleRoot() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}
