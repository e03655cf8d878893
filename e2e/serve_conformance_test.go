package e2e

// The helpers of TestServeConformance (zz_longest_test.go: one of the
// package's longest tests, which start first).

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runServerSuite runs the suite's active server scenarios against url and
// returns each scenario's verdict (true: every check passed) and the
// results folder.
func runServerSuite(t *testing.T, node, suite, url string) (map[string]bool, string) {
	out := filepath.Join(t.TempDir(), "results")
	cmd := exec.Command(node, suite, "server", "--url", url, "-o", out)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	b, _ := cmd.CombinedOutput() // exits 1 when any scenario fails
	line := regexp.MustCompile(`(?m)^([✓✗]) (\S+): (\d+) passed, (\d+) failed`)
	got := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(string(b), -1) {
		got[m[2]] = m[1] == "✓"
	}
	if len(got) < 20 {
		t.Errorf("conformance server --url %s: %d scenarios reported\n%s", url, len(got), tail(string(b), 4000))
	}
	return got, out
}

// refusedUnlocked says a scenario's report through serve shows only
// mcpsum's refusal of a tool or resource that is not in the lock. The
// suite's scenarios call tools (test_simple_text, test_error_handling) and
// subscribe to a resource (test://watched-resource) that server-everything
// does not have; directly it answers such a call with an isError result
// ("Tool ... not found") and accepts any subscription, which the suite
// 0.1.16 counts as a pass. serve refuses what is not locked (-32602), by
// design (LOCKFILE.md: nothing outside the locked surface is forwarded).
func refusedUnlocked(report string) bool {
	refusal := regexp.MustCompile(`mcpsum: unknown (tool "[^"]*": it is not in the lock for server "every"|resource "[^"]*": it is neither a locked resource nor matched by a locked resource template of server "every")`)
	n := 0
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "  FAILURE ") || strings.HasPrefix(l, "  WARNING ") {
			if !refusal.MatchString(l) {
				return false
			}
			n++
		}
	}
	return n > 0
}
