package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandPolicyPath(t *testing.T) {
	env := pathEnv{Home: "/home/u", Tmp: "/run/mcpsum/sbx-1/tmp"}
	good := map[string]string{
		"/srv/data":       "/srv/data",
		"/srv/data/":      "/srv/data",
		"/srv/./data":     "/srv/data",
		"~/notes":         "/home/u/notes",
		"~/":              "/home/u",
		"${TMP}/work":     "/run/mcpsum/sbx-1/tmp/work",
		"${TMP}/":         "/run/mcpsum/sbx-1/tmp",
		"/a/..b/c":        "/a/..b/c",
		"~/.config/thing": "/home/u/.config/thing",
	}
	for in, want := range good {
		if got, err := expandPolicyPath(in, env); err != nil || got != want {
			t.Errorf("expandPolicyPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := []string{"", "relative/path", "./x", "~", "~user/x", "${TMP}", "$TMP/x", "${HOME}/x", "/a/../b",
		"~/../etc", "${TMP}/../x", "/..", "..", "/a/b/..", "a\x00b", "C:\\x"}
	for _, in := range bad {
		if got, err := expandPolicyPath(in, env); err == nil {
			t.Errorf("expandPolicyPath(%q) = %q, want an error", in, got)
		}
	}
	if _, err := expandPolicyPath("~/x", pathEnv{}); err == nil {
		t.Error("~/ without a home should fail")
	}
}

func TestValidatePaths(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	home := filepath.Join(root, "home")
	repo := filepath.Join(root, "repo")
	lock := filepath.Join(repo, "mcp.lock")
	state := filepath.Join(home, ".local", "state", "mcpsum")
	run := filepath.Join(root, "run")
	tmp := filepath.Join(run, "sbx-1", "tmp")
	for _, d := range []string{home, repo, state, tmp, filepath.Join(home, "notes"), filepath.Join(home, "work"),
		filepath.Join(repo, "src"), filepath.Join(run, "sbx-2", "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(lock, []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(home, "notes", "a.md"), []byte("a"), 0o644)
	link := func(name, target string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("to-repo", repo)
	link("to-lock", lock)
	link("to-home", home)
	link("to-src", filepath.Join(repo, "src"))
	link("to-state", state)
	os.Symlink(home, filepath.Join(home, "work", "up")) // ~/work/up -> ~
	env := pathEnv{Home: home, Tmp: tmp, RunDir: run}
	prot := protectList([]string{lock, repo, filepath.Join(state, "audit.jsonl"), state, "/usr/local/bin/mcpsum"}, home, "", run)
	prot = append(prot, sealList([]string{state})...)
	os.MkdirAll(filepath.Join(state, "taint"), 0o700)

	cases := []struct {
		read, write []string
		err         string // "" = accepted
	}{
		{read: []string{"~/notes"}, write: []string{"~/work"}},
		{read: []string{"~/notes/a.md"}},
		{read: []string{"~"}, err: `write "~/" for the home folder`},
		{read: []string{"~/"}}, // reading home is the user's choice
		{write: []string{"~/"}, err: "your home directory"},
		{write: []string{root + "/to-home"}, err: "your home directory"},
		{write: []string{root + "/to-repo"}, err: "protected path " + repo},
		{write: []string{root + "/to-lock"}, err: "protected path " + lock},
		{write: []string{repo}, err: "protected path"},
		{write: []string{root}, err: "may not cover"},
		{write: []string{root + "/to-src"}}, // inside the lockfile's folder, not covering it
		{write: []string{repo + "/src"}},
		{write: []string{root + "/to-state"}, err: "protected path"},
		{write: []string{"~/.local"}, err: "protected path"},
		// inside the state directory: the server could clear its client's taint
		{write: []string{"~/.local/state/mcpsum/taint"}, err: "may not lie inside mcpsum's state directory"},
		{write: []string{root + "/to-state/taint"}, err: "may not lie inside mcpsum's state directory"},
		{read: []string{"~/.local/state/mcpsum/taint"}}, // reading is the lock author's choice
		{write: []string{"~/work/up"}, err: "your home directory"},
		{write: []string{"${TMP}/scratch/deep"}},
		{write: []string{run + "/sbx-2/tmp"}, err: "runtime directory"},
		{write: []string{run}, err: "runtime directory"},
		{read: []string{"~/missing"}, err: "does not exist"},
		{read: []string{"/proc/self"}, err: "provides itself"},
		{read: []string{"/dev"}, err: "provides itself"},
		{read: []string{"/"}, err: "whole filesystem"},
		{read: []string{run}, err: "runtime directory"},
		{read: []string{root}, err: "runtime directory"},
		{read: []string{"notes"}, err: "must be absolute"},
		{read: []string{"~/notes/../work"}, err: "must not contain a .. component"},
		{write: []string{"/usr/local/bin/mcpsum"}, err: ""}, // does not exist here: refused as missing, below
	}
	for _, c := range cases {
		ps, _, err := validatePaths(Config{Read: c.read, Write: c.write}, env, prot)
		if c.write != nil && c.write[0] == "/usr/local/bin/mcpsum" {
			if _, serr := os.Stat(c.write[0]); serr != nil && err == nil {
				t.Errorf("missing path accepted")
			}
			continue
		}
		var pe *PolicyError
		switch {
		case c.err == "" && err != nil:
			t.Errorf("read %q write %q: %v", c.read, c.write, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("read %q write %q: got %v (%d paths), want error containing %q", c.read, c.write, err, len(ps), c.err)
		case err != nil && !errors.As(err, &pe):
			t.Errorf("read %q write %q: %T is not a *PolicyError", c.read, c.write, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(tmp, "scratch", "deep")); err != nil || !fi.IsDir() {
		t.Errorf("${TMP}/scratch/deep was not created: %v", err)
	}
	ps, warn, err := validatePaths(Config{Write: []string{root + "/to-src", "~/work"}}, env, prot)
	if err != nil || len(ps) != 2 || ps[0].Real != filepath.Join(repo, "src") || ps[0].Literal != root+"/to-src" {
		t.Fatalf("resolved paths: %+v, %v", ps, err)
	}
	_ = warn
	os.MkdirAll(filepath.Join(home, "work", ".git"), 0o755)
	if _, warn, _ := validatePaths(Config{Write: []string{"~/work"}}, env, prot); len(warn) != 1 || !strings.Contains(warn[0], "hooks") {
		t.Errorf("warnings for a write path holding .git: %q", warn)
	}
}

func TestRefuseLauncher(t *testing.T) {
	for _, argv := range [][]string{{"npx", "-y", "@modelcontextprotocol/server-filesystem"}, {"/usr/bin/npx", "x"},
		{"npm", "exec", "pkg"}, {"npm", "x", "pkg"}, {"pnpm", "dlx", "pkg"}, {"yarn", "dlx", "pkg"}, {"bunx", "pkg"}, {"uvx", "pkg"}} {
		err := refuseLauncher(argv)
		if err == nil || !strings.Contains(err.Error(), "entry point") || !strings.Contains(err.Error(), "node") {
			t.Errorf("%q: %v", argv, err)
		}
	}
	for _, argv := range [][]string{{"node", "dist/index.js"}, {"npm", "run", "start"}, {"/usr/bin/python3", "-m", "srv"}} {
		if err := refuseLauncher(argv); err != nil {
			t.Errorf("%q refused: %v", argv, err)
		}
	}
	if err := refuseLauncher(nil); err == nil {
		t.Error("empty command accepted")
	}
}

func TestScriptRoot(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	pkg := filepath.Join(root, "proj", "node_modules", "@scope", "srv", "dist", "index.js")
	os.MkdirAll(filepath.Dir(pkg), 0o755)
	os.WriteFile(pkg, []byte("//"), 0o644)
	plain := filepath.Join(root, "srv", "main.py")
	os.MkdirAll(filepath.Dir(plain), 0o755)
	os.WriteFile(plain, []byte("#"), 0o644)
	inHome := filepath.Join(root, "home", "server.js")
	os.MkdirAll(filepath.Dir(inHome), 0o755)
	os.WriteFile(inHome, []byte("//"), 0o644)
	cases := []struct {
		argv []string
		want string
	}{
		{[]string{"node", pkg, "/data"}, filepath.Join(root, "proj", "node_modules")},
		{[]string{"/usr/bin/node", "--enable-source-maps", pkg}, filepath.Join(root, "proj", "node_modules")},
		{[]string{"python3.12", "main.py"}, filepath.Join(root, "srv")}, // relative to dir
		{[]string{"node", inHome}, inHome},                              // the home folder itself is never added
		{[]string{"mybinary", pkg}, ""},
		{[]string{"node", "-e", "1"}, ""}, // "1" is not a file
	}
	for _, c := range cases {
		got, ok := scriptRoot(c.argv, filepath.Join(root, "srv"), []string{filepath.Join(root, "home")})
		if c.want == "" && ok || c.want != "" && got != c.want {
			t.Errorf("scriptRoot(%q) = %q, %v; want %q", c.argv, got, ok, c.want)
		}
	}
}

func TestNarrowRoot(t *testing.T) {
	cases := []struct {
		exe, want string
	}{
		{"/home/u/.nvm/versions/node/v22/bin/node", "/home/u/.nvm/versions/node/v22"},
		{"/tmp/x/server", "/tmp/x"},           // /tmp itself is never added
		{"/tmp/server", "/tmp/server"},        // only the file
		{"/home/u/bin/server", "/home/u/bin"}, // not the home folder
		{"/opt/tool/bin/tool", "/opt/tool"},   //
		{"/run/bin/s", "/run/bin"},            // /run itself is never added
		{"/srv/run/bin/s", "/srv/run/bin"},    // not above the runtime folder /srv/run/mcpsum
	}
	for _, c := range cases {
		if got := installRoot(c.exe, []string{"/home/u", "/srv/run/mcpsum"}); got != c.want {
			t.Errorf("installRoot(%q) = %q, want %q", c.exe, got, c.want)
		}
	}
}

func FuzzExpandPolicyPath(f *testing.F) {
	for _, s := range []string{"/srv/data", "~/notes", "${TMP}/w", "../x", "~", "/a/../b", "${TMP}/..", "//x//y/"} {
		f.Add(s)
	}
	env := pathEnv{Home: "/home/u", Tmp: "/run/t"}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := expandPolicyPath(s, env)
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("%q -> %q: not clean and absolute", s, got)
		}
		for _, part := range strings.Split(s, "/") {
			if part == ".." {
				t.Fatalf("%q accepted with ..", s)
			}
		}
		if strings.HasPrefix(s, "~/") && !within(got, env.Home) || strings.HasPrefix(s, "${TMP}/") && !within(got, env.Tmp) {
			t.Fatalf("%q -> %q escapes its base", s, got)
		}
	})
}

// A server with a write path over a folder holding a nested policy path
// renamed that folder away and left a symlink to a secret folder in its
// place: the next start must refuse, not bind the secret (issue 12.2). The
// same for a nested write path pointed at an outside folder.
func TestPlantedSymlinkInWritePath(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	secret := filepath.Join(root, "home", ".ssh")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(proj, "cfg", "keys"), filepath.Join(proj, "out"), secret, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := pathEnv{Home: filepath.Join(root, "home"), Tmp: t.TempDir()}
	cfg := Config{Read: []string{proj + "/cfg/keys"}, Write: []string{proj, proj + "/out"}}
	if _, _, err := validatePaths(cfg, env, nil); err != nil {
		t.Fatalf("untouched policy: %v", err)
	}
	// The server's doing: rename cfg away, plant a link; same for out.
	if err := os.Rename(proj+"/cfg", proj+"/cfg.old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(secret), proj+"/cfg"); err != nil { // cfg/keys now means home/keys
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "home", "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := validatePaths(cfg, env, nil)
	var pe *PolicyError
	if !errors.As(err, &pe) || pe.Field != "filesystem.read" || !strings.Contains(pe.Reason, "planted") {
		t.Fatalf("read path through a planted symlink: got %v, want a filesystem.read refusal", err)
	}
	// Restore cfg; now plant the write path.
	os.Remove(proj + "/cfg")
	os.Rename(proj+"/cfg.old", proj+"/cfg")
	os.Remove(proj + "/out")
	if err := os.Symlink(outside, proj+"/out"); err != nil {
		t.Fatal(err)
	}
	_, _, err = validatePaths(cfg, env, nil)
	if !errors.As(err, &pe) || pe.Field != "filesystem.write" || !strings.Contains(pe.Reason, "planted") {
		t.Fatalf("write path through a planted symlink: got %v, want a filesystem.write refusal", err)
	}
	// A symlink the user made outside every write path is fine.
	link := filepath.Join(root, "data-link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := validatePaths(Config{Read: []string{link}, Write: []string{proj + "/cfg"}}, env, nil); err != nil {
		t.Fatalf("a user's own symlink outside the write paths: %v", err)
	}
}
