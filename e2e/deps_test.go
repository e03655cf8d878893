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
	t.Parallel()
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, d := range deps("github.com/mcpsum/mcpsum/cmd/mcpsum") {
		if strings.Contains(d, "sigstore") || d == "github.com/mcpsum/mcpsum/internal/attest" {
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

// Tessera, the log engine, is linked by the log operator's binary only:
// mcpsum's lookups (pkg/sumdb) use x/mod's note and tlog, formats and merkle,
// none of which has init work.
func TestMcpsumLinksNoTessera(t *testing.T) {
	t.Parallel()
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	sumdb := false
	for _, d := range deps("github.com/mcpsum/mcpsum/cmd/mcpsum") {
		if strings.Contains(d, "transparency-dev/tessera") || d == "github.com/mcpsum/mcpsum/internal/sumlog" || strings.Contains(d, "klog") {
			t.Errorf("cmd/mcpsum depends on %s; the log engine belongs in cmd/mcpsum-log", d)
		}
		sumdb = sumdb || d == "github.com/mcpsum/mcpsum/pkg/sumdb"
	}
	if !sumdb {
		t.Error("cmd/mcpsum does not link pkg/sumdb: is the check above looking at the right names?")
	}
	found := false
	for _, d := range deps("github.com/mcpsum/mcpsum/cmd/mcpsum-log") {
		found = found || d == "github.com/transparency-dev/tessera/storage/posix"
	}
	if !found {
		t.Error("cmd/mcpsum-log does not link Tessera's POSIX driver")
	}
}

// The PostgreSQL client of serve's --state is mcpsum's own (internal/pgwire):
// pgx and what it pulled in (encoding/xml, x/text's cases, precis and
// language, ~15 initialisers and 5 MB) ran at every start of every command.
func TestMcpsumLinksNoPgx(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/mcpsum/mcpsum/cmd/mcpsum").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	pgwire := false
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, "github.com/jackc/") || d == "encoding/xml" ||
			strings.HasPrefix(d, "golang.org/x/text/cases") || strings.HasPrefix(d, "golang.org/x/text/secure") || strings.HasPrefix(d, "golang.org/x/text/language") {
			t.Errorf("cmd/mcpsum depends on %s", d)
		}
		pgwire = pgwire || d == "github.com/mcpsum/mcpsum/internal/pgwire"
	}
	if !pgwire {
		t.Error("cmd/mcpsum does not link internal/pgwire: is the check above looking at the right names?")
	}
}
