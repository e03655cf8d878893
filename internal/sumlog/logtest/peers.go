package logtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// skip skips t, or fails it when CI requires every peer.
func skip(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// moduleRoot is the folder of mcpsum's go.mod above the working folder.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/mcpsum/mcpsum\n") {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			skip(t, "mcpsum's source tree (go.mod) is not above the test's folder")
		}
		dir = up
	}
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Peer returns the path of a tool of tools/logpeers/go.mod (by its last
// path element: "omniwitness", "versitygw"): from the folder
// MCPSUM_LOGPEERS_BIN names (.ci/run builds them there first), or built
// once per version of that module's go.sum into the cache folder, under a
// lock so concurrent test binaries build it once.
func Peer(t testing.TB, name string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p
	}
	if d := os.Getenv("MCPSUM_LOGPEERS_BIN"); d != "" { // built beforehand (.ci/run)
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("MCPSUM_LOGPEERS_BIN: %v", err)
		}
		built[name] = p
		return p
	}
	mod := filepath.Join(moduleRoot(t), "tools", "logpeers")
	sum, err := os.ReadFile(filepath.Join(mod, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	pkg := map[string]string{
		"omniwitness": "github.com/transparency-dev/witness/cmd/omniwitness",
		"versitygw":   "github.com/versity/versitygw/cmd/versitygw",
	}[name]
	if pkg == "" {
		t.Fatalf("logtest: no peer %q", name)
	}
	h := sha256.Sum256(append(sum, runtime.Version()...))
	cache := os.Getenv(testbin.SharedCacheEnv) // the real one: tests run with a HOME of their own
	if cache == "" {
		var err error
		if cache, err = os.UserCacheDir(); err != nil {
			cache = os.TempDir()
		}
	}
	dir := filepath.Join(cache, "mcpsum", "logpeers", hex.EncodeToString(h[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	lk, err := statefile.LockExclusive(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	if _, err := os.Stat(out); err != nil {
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go") //lint:ignore SA1019 the toolchain that built the test builds the peers
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		cmd := exec.Command(goBin, "build", "-o", out+".tmp", pkg)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s (tools/logpeers): %v\n%s", pkg, err, o)
		}
		if err := os.Rename(out+".tmp", out); err != nil {
			t.Fatal(err)
		}
	}
	built[name] = out
	return out
}

// freeAddr is a loopback address with a port nobody listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// start runs cmd until the test ends, its output in a file that a failure
// to come up prints.
func start(t testing.TB, cmd *exec.Cmd, logPath string) {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return fmt.Sprintf("%s:\n%s", path, b)
}
