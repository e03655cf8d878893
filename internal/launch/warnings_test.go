package launch

import (
	"path/filepath"
	"strings"
	"testing"
)

// The machine-specific-path warnings suggest what fits the argument: a
// --flag=/abs path inside the lockfile's folder keeps its flag in the
// relative spelling, and a data folder under the home folder is not told to
// "install the server".
func TestArgvWarningsSuggestions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	proj := t.TempDir()
	lock := filepath.Join(proj, "mcp.lock")
	got := argvWarnings([]string{"node", "--config=" + filepath.Join(proj, "conf", "a.json"), filepath.Join(home, "notes")}, lock)
	if len(got) != 2 {
		t.Fatalf("warnings %q", got)
	}
	if want := `write it as "--config=./conf/a.json"`; !strings.Contains(got[0], want) {
		t.Errorf("%q lacks %q", got[0], want)
	}
	// The lockfile's folder itself is ".", not "./.".
	for arg, want := range map[string]string{proj: `write it as "."`, "--root=" + proj + "/": `write it as "--root=."`} {
		if self := argvWarnings([]string{"srv", arg}, lock); len(self) != 1 || !strings.Contains(self[0], want) {
			t.Errorf("warnings for the lockfile's folder itself (%s): %q, want %s", arg, self, want)
		}
	}
	if strings.Contains(got[1], "install the server") || !strings.Contains(got[1], "under your home folder: a teammate will not have it") {
		t.Errorf("home-folder warning for a data folder: %q", got[1])
	}
}

func TestRelativePath(t *testing.T) {
	for a, want := range map[string]bool{
		"server.py": true, "./srv": true, "../x/y": true, "node_modules/@scope/pkg/dist/index.js": true,
		"pkg@1.2.3": false, "@scope/pkg@1.2.3": false, "-y": false, "--dir=x": false, "/abs/x.js": false,
		"https://x.example/a": false, "stdio": false, "": false,
	} {
		if got := relativePath(a); got != want {
			t.Errorf("relativePath(%q) = %v, want %v", a, got, want)
		}
	}
}
