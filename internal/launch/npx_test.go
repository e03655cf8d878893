package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// The locked npx commands mcpsum installs itself, and the folder of npx's
// cache each lands in: libnpmexec names it after the specs (checked against
// npm 11's own: `npx --yes --package=is-number@7.0.0 -- true` installs into
// _npx/ff47a4c9bc263a5c). Forms it does not know start as before.
func TestParseNpx(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string // the folder's name; "" for nil
	}{
		{[]string{"npx", "--yes", "--package=is-number@7.0.0", "--", "true"}, "ff47a4c9bc263a5c"},
		{[]string{"npx", "-y", "is-number@7.0.0"}, "ff47a4c9bc263a5c"},
		{[]string{"/usr/bin/npx", "-p", "is-number@7.0.0", "is-number"}, "ff47a4c9bc263a5c"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31", "arg"}, ""},
		{[]string{"npx", "./local"}, "-"},
		{[]string{"npx", "-c", "echo"}, "-"},
		{[]string{"npx", "--registry", "x", "pkg"}, "-"},
		{[]string{"node", "x.js"}, "-"},
		{[]string{"npx", "github:a/b"}, "-"},
	} {
		run := parseNpx(tc.argv)
		switch {
		case tc.want == "-" && run != nil:
			t.Errorf("%v: parsed as %v", tc.argv, run.packages)
		case tc.want != "-" && run == nil:
			t.Errorf("%v: not parsed", tc.argv)
		case tc.want != "" && tc.want != "-" && filepath.Base(run.folder("/c")) != tc.want:
			t.Errorf("%v: folder %s, want %s", tc.argv, run.folder("/c"), tc.want)
		}
	}
}

// The states of npx's folder: missing; half-installed (node_modules without
// the package.json npm writes last); installed; busy (npm's lock).
func TestNpxState(t *testing.T) {
	run := parseNpx([]string{"npx", "-y", "@scope/pkg@1.0.0"})
	dir := t.TempDir()
	if s := run.state(dir); s != npxMissing {
		t.Fatalf("empty: %v", s)
	}
	pkg := filepath.Join(dir, "node_modules", "@scope", "pkg")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{}`), 0o644)
	if s := run.state(dir); s != npxHalf {
		t.Fatalf("without the folder's package.json: %v", s)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{}`), 0o644)
	if s := run.state(dir); s != npxInstalled {
		t.Fatalf("installed: %v", s)
	}
	os.Mkdir(filepath.Join(dir, "concurrency.lock"), 0o755)
	if s := run.state(dir); s != npxBusy {
		t.Fatalf("npm's lock: %v", s)
	}
}
