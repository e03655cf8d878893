package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

// The binary that serves lock, verify, show, proxy and the sandbox stage
// links no Sigstore code (its ~265 package initialisers would run at every
// start); only the signing helper does.
func TestMcpsumLinksNoSigstore(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, d := range deps("github.com/mcpsum/mcpsum/cmd/mcpsum") {
		if strings.Contains(d, "sigstore") || d == "github.com/mcpsum/mcpsum/pkg/attest" {
			t.Errorf("cmd/mcpsum depends on %s; signing belongs in cmd/mcpsum-attest", d)
		}
	}
	found := false
	for _, d := range deps("github.com/mcpsum/mcpsum/cmd/mcpsum-attest") {
		found = found || d == "github.com/sigstore/sigstore-go/pkg/verify"
	}
	if !found {
		t.Error("cmd/mcpsum-attest does not link sigstore-go/pkg/verify: is the check above looking at the right names?")
	}
}
