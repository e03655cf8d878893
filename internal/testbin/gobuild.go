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
	"strings"
)

// GoBuild builds pkg into out with the toolchain that built the test,
// without cgo, with flags before -o. With the tests' shared cache
// (SharedCacheEnv, as Run sets it) it builds into a folder there, one per
// checkout of the module, and hard-links (or copies) the result to out: go
// build leaves a target whose build ID is current as it is, so a run whose
// sources did not change links nothing (linking is most of building a
// peer from a warm build cache: e2e's dozen binaries took ~20 CPU-seconds
// every run). out is a link of its own, so a later run that rebuilds the
// cached program never changes a file this run executes; a file lock per
// program keeps two runs from building it at once.
func GoBuild(out, pkg string, flags ...string) error {
	target := out
	if c := cachedPath(pkg, flags); c != "" {
		if unlock, err := lockFile(c + ".lock"); err == nil {
			defer unlock()
			target = c
		}
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, append(append([]string{"build"}, flags...), "-o", target, pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
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

// cachedPath is where GoBuild keeps pkg built with flags in the shared
// cache: mcpsum/testbin/<checkout>/<name>-<pkg and flags>, the checkout
// named after the folder of the go.mod above the working folder; "" when
// there is no shared cache or no go.mod.
func cachedPath(pkg string, flags []string) string {
	shared := os.Getenv(SharedCacheEnv)
	root := moduleRoot()
	if shared == "" || root == "" {
		return ""
	}
	r := sha256.Sum256([]byte(root))
	dir := filepath.Join(shared, "mcpsum", "testbin", hex.EncodeToString(r[:6]))
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	p := sha256.Sum256([]byte(pkg + "\x00" + strings.Join(flags, "\x00")))
	return filepath.Join(dir, filepath.Base(pkg)+"-"+hex.EncodeToString(p[:6]))
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
