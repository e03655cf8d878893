package testbin

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// childEnv makes this test binary, re-run by TestIsolate, play a test
// process whose user's real home is the folder it names.
const childEnv = "TESTBIN_ISOLATE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(isolateChild())
	}
	os.Exit(Run(m))
}

// isolateChild isolates itself, checks its environment, writes what
// $TESTBIN_ISOLATE_CHILD asks into the real home, and prints what Close
// reported.
func isolateChild() int {
	real := os.Getenv("HOME")
	iso, err := Isolate()
	if err != nil {
		fmt.Println("isolate:", err)
		return 1
	}
	for k, want := range map[string]string{
		"HOME":             filepath.Join(iso.Root, "home"),
		"XDG_STATE_HOME":   filepath.Join(iso.Root, "home", ".local", "state"),
		"XDG_CONFIG_HOME":  filepath.Join(iso.Root, "home", ".config"),
		"XDG_CACHE_HOME":   filepath.Join(iso.Root, "home", ".cache"),
		"TMPDIR":           filepath.Join(iso.Root, "tmp"),
		"GOCACHE":          filepath.Join(real, ".cache", "go-build"), // shared: the build cache stays warm
		"GOMODCACHE":       filepath.Join(real, "go", "pkg", "mod"),
		"npm_config_cache": filepath.Join(real, ".npm"),
		SharedCacheEnv:     filepath.Join(real, ".cache"),
	} {
		if got := os.Getenv(k); got != want {
			fmt.Printf("%s=%s, want %s\n", k, got, want)
		}
	}
	if h, _ := os.UserHomeDir(); h == real {
		fmt.Println("os.UserHomeDir is still the real home")
	}
	// What a test that ignores the isolation would leave: a record naming
	// its temp folder, in the real state folder; and a file another
	// program on the machine writes there meanwhile (not this run's).
	switch os.Getenv(childEnv) {
	case "leak":
		rec := filepath.Join(real, ".local", "state", "mcpsum", "import-backups", "x.json")
		os.MkdirAll(filepath.Dir(rec), 0o700)
		os.WriteFile(rec, []byte(`{"config":"`+filepath.Join(os.TempDir(), "TestX1", "001", "claude.json")+`"}`), 0o600)
		os.WriteFile(filepath.Join(real, ".claude.json"), []byte(`{"mcpServers":{"a":{"command":"`+filepath.Join(os.TempDir(), "bin")+`"}}}`), 0o600)
		// mcpsum's own cache is watched; the caches tests and CI share on
		// purpose (sharedCaches) are not.
		for _, sub := range []string{"sumdb", "testbin"} {
			d := filepath.Join(real, ".cache", "mcpsum", sub, "x")
			os.MkdirAll(d, 0o700)
			os.WriteFile(filepath.Join(d, "f"), []byte(os.TempDir()), 0o600)
		}
	case "other":
		rec := filepath.Join(real, ".local", "state", "mcpsum", "import-backups", "y.json")
		os.MkdirAll(filepath.Dir(rec), 0o700)
		os.WriteFile(rec, []byte(`{"config":"/tmp/TestY1/001/claude.json"}`), 0o600)
	}
	// A leak inside the isolated folders is fine.
	os.MkdirAll(filepath.Join(os.Getenv("XDG_STATE_HOME"), "mcpsum"), 0o700)
	os.WriteFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "mcpsum", "z.json"), []byte(iso.Root), 0o600)
	fmt.Println("root:", iso.Root)
	if err := iso.Close(); err != nil {
		fmt.Println("close:", err)
	}
	return 0
}

func runChild(t *testing.T, mode string) (home, out string) {
	t.Helper()
	home = t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, childEnv + "=" + mode}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	return home, string(b)
}

// TestIsolate: a test process gets its own HOME, XDG folders and TMPDIR,
// keeps the shared caches, and Close names what it wrote into the real
// folders (and only that), then removes its folder.
func TestIsolate(t *testing.T) {
	home, out := runChild(t, "leak")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "root: ") && !strings.HasPrefix(l, "close: ") && !strings.HasPrefix(l, "  ") {
			t.Errorf("child: %s", l)
		}
	}
	for _, want := range []string{
		filepath.Join(home, ".local", "state", "mcpsum", "import-backups", "x.json"),
		filepath.Join(home, ".claude.json"),
		filepath.Join(home, ".cache", "mcpsum", "sumdb", "x", "f"),
	} {
		if !strings.Contains(out, "  "+want+"\n") && !strings.HasSuffix(out, "  "+want+"\n") {
			t.Errorf("Close did not name %s:\n%s", want, out)
		}
	}
	if shared := filepath.Join(home, ".cache", "mcpsum", "testbin"); strings.Contains(out, shared) {
		t.Errorf("Close named a file of testbin's shared cache:\n%s", out)
	}
	if !strings.Contains(out, "close: tests wrote into the real user's folders") {
		t.Errorf("Close did not report the leak:\n%s", out)
	}
	root := strings.TrimPrefix(lines[0], "root: ")
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the isolated folder %s is still there (%v)", root, err)
	}

	// Another program's write to the same real folder is not this run's.
	_, out = runChild(t, "other")
	if strings.Contains(out, "close:") || strings.Count(out, "\n") != 1 {
		t.Errorf("a file this run did not write was reported:\n%s", out)
	}
}

// TestRealFoldersUntouched: this very test process runs isolated, and the
// isolation it runs under knows the real folders it hides.
func TestRealFoldersUntouched(t *testing.T) {
	iso := Current(t)
	if h, _ := os.UserHomeDir(); h == iso.Real["home"] || !strings.HasPrefix(h, iso.Root) {
		t.Errorf("HOME is %s: not under the isolated folder %s", h, iso.Root)
	}
	if d := os.TempDir(); !strings.HasPrefix(d, iso.Root) {
		t.Errorf("TMPDIR is %s: not under the isolated folder %s", d, iso.Root)
	}
	// Another user (initdb, a test's nobody) enters TMPDIR as it would /tmp.
	for _, d := range []string{iso.Root, os.TempDir()} {
		if fi, err := os.Stat(d); err != nil {
			t.Error(err)
		} else if fi.Mode().Perm()&0o005 != 0o005 {
			t.Errorf("%s: other users cannot enter it (%v)", d, fi.Mode())
		} else if fi.Mode().Perm()&0o002 != 0 && fi.Mode()&os.ModeSticky == 0 {
			t.Errorf("%s: writable by others without the sticky bit (%v): fleet refuses such a folder", d, fi.Mode())
		}
	}
	if l := iso.Leaks(); len(l) > 0 {
		t.Errorf("leaks so far: %v", l)
	}
}

// TestEveryPackageIsolated: every package of the module with tests runs
// them through testbin.Run (or testbin.M) from its TestMain, so a new test
// gets its own HOME and XDG folders without asking.
func TestEveryPackageIsolated(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{} // folders with _test.go files -> has an isolating TestMain
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			switch e.Name() {
			case "node_modules", "testdata", ".git", "tools":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		d := filepath.Dir(p)
		dirs[d] = dirs[d] || isolatingMain(t, p)
		return nil
	})
	if len(dirs) < 30 {
		t.Fatalf("found only %d packages with tests under %s", len(dirs), root)
	}
	for d, ok := range dirs {
		if !ok {
			rel, _ := filepath.Rel(root, d)
			t.Errorf("%s: no TestMain that runs the tests with testbin.Run (add `func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }`)", rel)
		}
	}
}

// isolatingMain reports whether the file's TestMain calls testbin.Run or
// testbin.M (Run or M inside package testbin itself).
func isolatingMain(t *testing.T, path string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "TestMain" || fn.Recv != nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch c := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := c.X.(*ast.Ident); ok && x.Name == "testbin" && (c.Sel.Name == "Run" || c.Sel.Name == "M") {
					found = true
				}
			case *ast.CallExpr:
				if id, ok := c.Fun.(*ast.Ident); ok && f.Name.Name == "testbin" && id.Name == "Run" {
					found = true
				}
			}
			return true
		})
	}
	return found
}

// atExitEnv makes TestAtExitChild, re-run by TestAtExit, record in the file
// it names when its test and its AtExit functions ran.
const atExitEnv = "TESTBIN_ATEXIT_CHILD"

// TestAtExit: what a test registers with AtExit runs once, after the
// tests ended, last registered first, while the isolated folders are
// still there (a shared server's data folder is in TMPDIR).
func TestAtExit(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "rec")
	cmd := exec.Command(self, "-test.run", "^TestAtExitChild$", "-test.count=1")
	cmd.Env = []string{atExitEnv + "=" + rec} // isolated afresh: its own TMPDIR
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, IsolatedEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if want := "test ended\nsecond, tmp there\nfirst, tmp there\n"; string(b) != want {
		t.Errorf("the child recorded %q, want %q", b, want)
	}
}

func TestAtExitChild(t *testing.T) {
	rec := os.Getenv(atExitEnv)
	if rec == "" {
		t.Skip("run by TestAtExit")
	}
	write := func(s string) {
		f, err := os.OpenFile(rec, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, s)
			f.Close()
		}
	}
	tmp := os.TempDir()
	for _, name := range []string{"first", "second"} {
		if !AtExit(func() {
			if _, err := os.Stat(tmp); err != nil {
				write(name + ", tmp gone")
				return
			}
			write(name + ", tmp there")
		}) {
			t.Fatal("AtExit refused under Run")
		}
	}
	t.Cleanup(func() { write("test ended") })
}
