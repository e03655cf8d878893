package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// A locked npx command whose packages the project's node_modules holds at
// exactly their versions installs nothing (npx runs that copy), so mcpsum
// skips its own install; anything npx might not take as installed (another
// version, a range or tag, another name in package.json, a nearer project
// without them, an npm workspace, a package.json it cannot read) still gets
// the install.
func TestNpxLocal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg := func(name, version string) string {
		return `{"name": "` + name + `", "version": "` + version + `", "bin": {"x": "x.js"}}`
	}
	write("proj/package.json", `{"dependencies": {}}`)
	write("proj/node_modules/@s/p/package.json", pkg("@s/p", "1.2.3"))
	write("proj/node_modules/plain/package.json", pkg("plain", "2026.8.31"))
	write("proj/node_modules/renamed/package.json", pkg("other", "1.0.0"))
	write("proj/node_modules/twice/package.json", `{"name": "twice", "version": "1.0.0", "version": "9.9.9"}`)
	write("proj/sub/deeper/.keep", "")
	write("proj/nearer/package.json", `{}`)
	write("ws/package.json", `{"workspaces": ["proj"]}`)
	write("ws/proj/package.json", `{}`)
	write("ws/proj/node_modules/plain/package.json", pkg("plain", "2026.8.31"))
	write("nm-only/node_modules/plain/package.json", pkg("plain", "2026.8.31"))
	proj := filepath.Join(root, "proj")
	for _, c := range []struct {
		dir  string
		argv []string
		want bool
	}{
		{proj, []string{"npx", "-y", "@s/p@1.2.3"}, true},
		{proj, []string{"npx", "-y", "plain@2026.8.31", "--flag"}, true},
		{proj, []string{"npx", "-p", "@s/p@1.2.3", "-p", "plain@2026.8.31", "x"}, true},
		{filepath.Join(proj, "sub", "deeper"), []string{"npx", "-y", "@s/p@1.2.3"}, true}, // npm walks up to the project
		{filepath.Join(root, "nm-only"), []string{"npx", "-y", "plain@2026.8.31"}, true},  // node_modules alone marks it
		{proj, []string{"npx", "-y", "@s/p@1.2.4"}, false},
		{proj, []string{"npx", "-y", "@s/p@^1.2.3"}, false},
		{proj, []string{"npx", "-y", "@s/p@latest"}, false},
		{proj, []string{"npx", "-y", "@s/p"}, false},
		{proj, []string{"npx", "-y", "plain@v2026.8.31"}, false},
		{proj, []string{"npx", "-p", "@s/p@1.2.3", "-p", "missing@1.0.0", "x"}, false},
		{proj, []string{"npx", "-y", "renamed@1.0.0"}, false},
		{proj, []string{"npx", "-y", "twice@1.0.0"}, false},
		{filepath.Join(proj, "nearer"), []string{"npx", "-y", "@s/p@1.2.3"}, false}, // its own project, without them
		{filepath.Join(root, "ws", "proj"), []string{"npx", "-y", "plain@2026.8.31"}, false},
		{root, []string{"npx", "-y", "plain@2026.8.31"}, false},
		{"proj", []string{"npx", "-y", "@s/p@1.2.3"}, false}, // not absolute: never guessed
	} {
		run := parseNpx(c.argv)
		if run == nil {
			t.Fatalf("parseNpx(%q) = nil", c.argv)
		}
		if got := run.local(c.dir); got != c.want {
			t.Errorf("%q in %s: local = %v, want %v", c.argv, c.dir, got, c.want)
		}
	}
}
