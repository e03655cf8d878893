package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/sandbox"
)

// `show` and `verify` refuse exactly the policy entries the sandbox refuses
// at start (issue 11: "~", "${TMP}" and "*.com:443" used to pass show and fail
// only when the server started): both use internal/policysyntax.
func TestPolicySyntaxShowMatchesSandbox(t *testing.T) {
	base, err := os.ReadFile("../../testdata/lockfiles/valid.lock")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"~/notes"`, `"~"`, `policy.sandbox.filesystem.read[0]: path "~" must be absolute`},
		{`"${TMP}/work"`, `"${TMP}"`, `policy.sandbox.filesystem.write[0]: path "${TMP}" must be absolute`},
		{`"[::1]:9000"`, `"*.com:443"`, `network entry "*.com:443": a wildcard must name a domain below a top-level domain`},
	} {
		if !bytes.Contains(base, []byte(c.old)) {
			t.Fatalf("fixture lacks %s", c.old)
		}
		path := filepath.Join(t.TempDir(), "mcp.lock")
		if err := os.WriteFile(path, bytes.Replace(base, []byte(c.old), []byte(c.new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"show", "--lockfile", path}, strings.NewReader(""), &stdout, &stderr)
		if code != 3 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("show with %s: exit %d, want 3 and %q\n%s%s", c.new, code, c.want, stdout.String(), stderr.String())
		}
		// The sandbox refuses the same entry with the same words.
		cfg := sandbox.Config{Read: []string{"/usr"}}
		switch c.old {
		case `"~/notes"`:
			cfg.Read = []string{"~"}
		case `"${TMP}/work"`:
			cfg.Write = []string{"${TMP}"}
		default:
			cfg.NetworkAllow, cfg.AuditLog = []string{"*.com:443"}, filepath.Join(t.TempDir(), "audit")
		}
		_, err := sandbox.Prepare(cfg, []string{"/bin/true"}, nil)
		if err == nil {
			t.Fatalf("sandbox accepted %s", c.new)
		}
		msg := c.want
		if i := strings.Index(c.want, "]: "); i >= 0 {
			msg = c.want[i+3:]
		}
		if !strings.Contains(err.Error(), msg) && !strings.Contains(err.Error(), "Linux only") {
			t.Errorf("sandbox refused %s as %q, want %q", c.new, err, msg)
		}
	}
}
