package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestRealHomeUntouched: a test that runs mcpsum with the environment it
// inherits (as most tests here do) writes into the HOME and XDG folders
// TestMain gave the run, never into the real user's. `import --write`
// keeps the record of its backups in the state folder: it lands in the
// run's one, and no record in the real state folder names this config.
// (Before every test binary ran isolated, each run left such a record in
// ~/.local/state/mcpsum/import-backups.)
func TestRealHomeUntouched(t *testing.T) {
	t.Parallel()
	iso := testbin.Current(t)
	dir := t.TempDir()
	serverScript(t, dir)
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"srv":{"command":"sh","args":["srv.sh"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := mcpsum(t, dir, nil, "import", "--write", cfg); code != 0 {
		t.Fatalf("import --write: exit %d\n%s", code, stderr)
	}
	records := func(state string) []string {
		var out []string
		ents, _ := os.ReadDir(filepath.Join(state, "import-backups"))
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(state, "import-backups", e.Name()))
			if strings.Contains(string(b), cfg) {
				out = append(out, e.Name())
			}
		}
		return out
	}
	if got := records(filepath.Join(os.Getenv("XDG_STATE_HOME"), "mcpsum")); len(got) != 1 {
		t.Errorf("the run's state folder holds %d records of the import, want 1", len(got))
	}
	if got := records(iso.Real["state"]); len(got) > 0 {
		t.Errorf("the real state folder %s holds a record of this test's import: %v", iso.Real["state"], got)
	}
	if l := iso.Leaks(); len(l) > 0 {
		t.Errorf("tests of this run wrote into the real folders: %v", l)
	}
}
