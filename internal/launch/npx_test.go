package launch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
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

// A failed install names the install-time variables set for mcpsum that it
// did not see (install-script kinds such as PUPPETEER_SKIP_DOWNLOAD, and
// any its output mentions), never their values, with the lock command that
// passes them; npm's configuration, proxies and certificates it saw.
func TestInstallVariables(t *testing.T) {
	t.Setenv("PUPPETEER_SKIP_DOWNLOAD", "value-not-shown")
	t.Setenv("MY_TOKEN_VAR", "x")
	t.Setenv("UNRELATED_VAR", "y")
	t.Setenv("npm_config_registry", "http://registry.invalid/")
	t.Setenv("HTTPS_PROXY", "http://proxy.invalid/")
	env := InstallEnv([]string{"LANG"})
	for _, want := range []string{"npm_config_registry=http://registry.invalid/", "HTTPS_PROXY=http://proxy.invalid/"} {
		if !slices.Contains(env, want) {
			t.Errorf("the install's environment lacks %s: %v", want, env)
		}
	}
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "PUPPETEER_") }) {
		t.Errorf("the install saw a variable it was not given: %v", env)
	}
	entry := &lockfile.Server{Command: []string{"npx", "-y", "desktop-commander@1.0.0"}, EnvPassthrough: []string{"LANG"}}
	ie := &InstallError{Packages: []string{"desktop-commander@1.0.0"}, Log: "/x.log", Err: errors.New("exit status 1"), Output: "npm error: MY_TOKEN_VAR is not set"}
	err := Explain("dc", entry, Options{Lockfile: "/p/mcp.lock"}, ie)
	msg := err.Error()
	hints := hint.Of(err)
	if len(hints) != 1 {
		t.Fatalf("hints %q: %v", hints, err)
	}
	h := hints[0]
	want := "mcpsum lock --lockfile /p/mcp.lock --name dc --env LANG --env MY_TOKEN_VAR --env PUPPETEER_SKIP_DOWNLOAD -- npx -y desktop-commander@1.0.0"
	if !strings.Contains(h, want) || strings.Contains(h, "UNRELATED_VAR") || strings.Contains(msg+h, "value-not-shown") {
		t.Fatalf("hint %q, want the lock command %q", h, want)
	}
}
