package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// registryReachable skips the test (fails it in CI) when the npm registry
// cannot be reached: observe installs packages from it.
func registryReachable(t *testing.T) {
	t.Helper()
	c, err := net.DialTimeout("tcp", "registry.npmjs.org:443", 10*time.Second)
	if err != nil {
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatalf("the npm registry is unreachable: %v", err)
		}
		t.Skipf("the npm registry is unreachable: %v", err)
	}
	c.Close()
}

// mcpsum-log observe, the observer's batch job, against the real npm
// registry: it installs each listed version (scripts off, a scratch cache),
// locks it in the sandbox with network only to the registry, logs its
// surface under the key everyone's `npx -y PKG@VERSION` has, skips what the
// log holds, reports a failure and goes on (exit 3 at the end). A user who
// locks the same package matches the observer's record.
func TestObserve(t *testing.T) {
	t.Parallel()
	registryReachable(t)
	work := t.TempDir()
	logDir := filepath.Join(work, "log")
	vkey, se, code := mcpsumLog(t, work, "init", "--dir", logDir, "--origin", "observe.e2e/mcp")
	if code != 0 {
		t.Fatalf("init: exit %d\n%s", code, se)
	}
	vkey = strings.TrimSpace(vkey)
	list := filepath.Join(work, "list")
	must(t, os.WriteFile(list, []byte("# what our organisation runs\nnpm/"+memSpec+"\nnpm/@modelcontextprotocol/server-no-such-package@1.0.0\nnpm/"+memSpec+"\n"), 0o644))
	so, se, code := mcpsumLog(t, work, "observe", "--dir", logDir, "--list", list)
	if code != 3 || !strings.Contains(so, "logged  npm/"+memSpec+" npm/"+memSpec+"#") ||
		!strings.Contains(se, "server-no-such-package@1.0.0  FAILED: npm install") ||
		!strings.Contains(se, "1 logged, 1 skipped (already logged), 1 failed") {
		t.Fatalf("observe: exit %d, want 3 (one failure, the rest done)\n%s%s", code, so, se)
	}
	must(t, os.WriteFile(list, []byte("npm/"+memSpec+"\n"), 0o644))
	if so, se, code = mcpsumLog(t, work, "observe", "--dir", logDir, "--list", list); code != 0 || !strings.Contains(se, "skipped: the log holds it") {
		t.Fatalf("observe again: exit %d\n%s%s", code, so, se)
	}
	must(t, os.WriteFile(list, []byte("pypi/mcp-server-fetch@1.0\n"), 0o644))
	if _, se, code = mcpsumLog(t, work, "observe", "--dir", logDir, "--list", list); code != 2 || !strings.Contains(se, "observe locks npm packages") {
		t.Fatalf("observe of a PyPI package: exit %d, want 2\n%s", code, se)
	}
	// A user locking the same package (npx, as everyone runs it) matches.
	url, _ := serveLog(t, logDir)
	user := npmProject(t, false)
	_, se, code = mcpsum(t, user, []string{"MCPSUMDB=" + vkey + " " + url, "XDG_STATE_HOME=" + t.TempDir()}, "lock", "--name", "mem", "--", "npx", "-y", memSpec)
	if code != 0 || !strings.Contains(se, "mem: matches the transparency log (npm/"+memSpec+"#") {
		t.Fatalf("a user's lock of the observed package: exit %d\n%s", code, se)
	}
}
