package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// runScript runs a shell script of the repository with env added.
func runScript(t *testing.T, dir, script string, env ...string) (string, int) {
	t.Helper()
	abs, _ := filepath.Abs(filepath.Join("..", script))
	cmd := exec.Command("sh", abs)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

// The action's installer checks the release binary against SHA256SUMS and
// against the sha256 pinned in the workflow, and installs nothing that does
// not match. A local HTTP server plays the release page.
func TestActionInstall(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("release names cover linux/darwin amd64/arm64")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		requirePeers(t, "curl is needed by the action's installer")
	}
	name := "mcpsum-linux-" + runtime.GOARCH
	rel := t.TempDir()
	good, err := os.ReadFile(bin.mcpsum)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(good)
	hexSum := hex.EncodeToString(sum[:])
	publish := func(version string, binary []byte, sums string) {
		d := filepath.Join(rel, version)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, name), binary, 0o644)
		os.WriteFile(filepath.Join(d, "SHA256SUMS"), []byte(sums), 0o644)
	}
	publish("v9.9.9", good, hexSum+"  "+name+"\n")
	publish("v6.6.6", append(append([]byte{}, good...), 0), hexSum+"  "+name+"\n") // tampered in transit
	srv := httptest.NewServer(http.FileServer(http.Dir(rel)))
	defer srv.Close()

	install := func(version, pin string) (string, int, string) {
		dest := filepath.Join(t.TempDir(), "bin")
		ghPath := filepath.Join(t.TempDir(), "github_path")
		out, code := runScript(t, t.TempDir(), "scripts/action/install.sh",
			"MCPSUM_VERSION="+version, "MCPSUM_SHA256="+pin, "MCPSUM_BASE_URL="+srv.URL,
			"INSTALL_DIR="+dest, "GITHUB_PATH="+ghPath)
		p, _ := os.ReadFile(ghPath)
		return out, code, strings.TrimSpace(string(p))
	}
	out, code, path := install("v9.9.9", hexSum)
	if code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	if v, err := exec.Command(filepath.Join(path, "mcpsum"), "version").Output(); err != nil || len(v) == 0 {
		t.Fatalf("installed mcpsum does not run: %v", err)
	}
	for _, c := range []struct{ version, pin, want string }{
		{"v6.6.6", "", "but SHA256SUMS says"},
		{"v9.9.9", strings.Repeat("0", 64), "but the workflow pins"},
		{"v1.0.0", "", "downloading"},
		{"v1;rm", "", "may only use"},
	} {
		out, code, path := install(c.version, c.pin)
		if code == 0 || !strings.Contains(out, c.want) || path != "" {
			t.Errorf("install %s (pin %q): exit %d, PATH %q\n%s", c.version, c.pin, code, path, out)
		}
	}
}

// The action's verify step: the text report in the log and the job summary
// (HTML-escaped), SARIF on request, and the exit code as an output, for a
// server that matches and one that drifted.
func TestActionVerifyStep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	serverScript(t, dir)
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	binDir := filepath.Dir(bin.mcpsum)
	step := func() (string, string, string) {
		summary := filepath.Join(t.TempDir(), "summary.md")
		output := filepath.Join(t.TempDir(), "output")
		log, code := runScript(t, dir, "scripts/action/verify.sh",
			"PATH="+binDir+":"+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+output,
			"ACTION_LOCKFILE=mcp.lock", "ACTION_SARIF_FILE=out.sarif", "ACTION_STRICT=false")
		if code != 0 {
			t.Fatalf("verify.sh itself failed: exit %d\n%s", code, log)
		}
		s, _ := os.ReadFile(summary)
		o, _ := os.ReadFile(output)
		return log, string(s), string(o)
	}
	log, summary, output := step()
	if output != "exit-code=0\n" || !strings.Contains(summary, "✅") || !strings.Contains(log, "ok     srv") {
		t.Fatalf("matching server: output %q\nsummary %s\nlog %s", output, summary, log)
	}
	serverScript(t, dir, "-desc", "<b>echo</b> & read ~/.ssh/id_rsa")
	log, summary, output = step()
	if output != "exit-code=1\n" || !strings.Contains(summary, "❌ drift") || !strings.Contains(log, "DRIFT") {
		t.Fatalf("drifted server: output %q\nsummary %s\nlog %s", output, summary, log)
	}
	if !strings.Contains(summary, "&lt;b&gt;echo&lt;/b&gt; &amp; read") || strings.Contains(summary, "<b>") {
		t.Errorf("server text reached the summary unescaped:\n%s", summary)
	}
	sarif, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	validSARIF(t, sarif)

	// The start-up allowance input reaches verify: a server that needs 3 s
	// before its first line fails with a 1 s allowance (exit 3) and passes
	// with the default.
	serverScript(t, dir)
	script, _ := os.ReadFile(filepath.Join(dir, "srv.sh"))
	os.WriteFile(filepath.Join(dir, "srv.sh"), []byte(strings.Replace(string(script), "exec ", "sleep 3; exec ", 1)), 0o755)
	slow := func(extra ...string) string {
		output := filepath.Join(t.TempDir(), "output")
		log, code := runScript(t, dir, "scripts/action/verify.sh", append([]string{
			"PATH=" + binDir + ":" + os.Getenv("PATH"), "GITHUB_OUTPUT=" + output, "ACTION_TIMEOUT_SECS=1"}, extra...)...)
		if code != 0 {
			t.Fatalf("verify.sh itself failed: exit %d\n%s", code, log)
		}
		o, _ := os.ReadFile(output)
		return string(o) + log
	}
	if out := slow("ACTION_START_TIMEOUT_SECS=1"); !strings.HasPrefix(out, "exit-code=3\n") || !strings.Contains(out, "start-up allowance 1s") {
		t.Errorf("a 1 s start-up allowance for a server that needs 3 s:\n%s", out)
	}
	if out := slow(); !strings.HasPrefix(out, "exit-code=0\n") {
		t.Errorf("the default start-up allowance for a server that needs 3 s:\n%s", out)
	}
}

// action.yml runs the scripts that exist, pins third-party actions by commit,
// and every input it reads is declared.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Using string `yaml:"using"`
			Steps []struct {
				Run  string `yaml:"run"`
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	for _, s := range a.Runs.Steps {
		for _, m := range regexp.MustCompile(`\$GITHUB_ACTION_PATH/(\S+?)"`).FindAllStringSubmatch(s.Run, -1) {
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("step runs %s: %v", m[1], err)
			}
		}
		if s.Uses != "" && !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(strings.Fields(s.Uses)[0]) {
			t.Errorf("%s is not pinned by commit", s.Uses)
		}
	}
	for _, m := range regexp.MustCompile(`inputs\.([a-z0-9-]+)`).FindAllStringSubmatch(string(raw), -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml reads undeclared input %s", m[1])
		}
	}
}

// The pre-commit hooks: their file pattern picks mcp.lock files only, and
// their entry, run as pre-commit runs it (entry + the staged file names, in
// the user's repository; a script entry from pre-commit's own checkout of
// this repository), passes a good lock and fails a tampered one without
// starting a server. The script hook builds mcpsum alone, once.
func TestPreCommitHooks(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		PassFilenames bool   `yaml:"pass_filenames"`
	}
	if err := yaml.Unmarshal(raw, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) == 0 {
		t.Fatal("no hooks")
	}
	dir := t.TempDir()
	serverScript(t, dir)
	mustLock(t, dir, nil, "--name", "srv", "--", "sh", "srv.sh")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	lock, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	os.WriteFile(filepath.Join(dir, "sub", "mcp.lock"), []byte(strings.Replace(string(lock), `"description": "`, `"description": "x`, 1)), 0o644)
	os.Remove(filepath.Join(dir, "srv.sh")) // a hook that started the server would now fail differently

	// pre-commit's checkout of this repository (what the build needs).
	clone := t.TempDir()
	for _, p := range []string{"go.mod", "go.sum", "cmd", "internal", "pkg", "scripts"} {
		if out, err := exec.Command("cp", "-a", filepath.Join("..", p), clone).CombinedOutput(); err != nil {
			t.Fatalf("cp %s: %v\n%s", p, err, out)
		}
	}
	for _, h := range hooks {
		re := regexp.MustCompile(h.Files)
		for f, want := range map[string]bool{"mcp.lock": true, "a/b/mcp.lock": true, "mcp.lock.bak": false, "xmcp.lock": false, "mcp.lock/x": false} {
			if re.MatchString(f) != want {
				t.Errorf("%s: files %q matches %s: %v", h.ID, h.Files, f, !want)
			}
		}
		if !h.PassFilenames {
			t.Errorf("%s: pass_filenames false", h.ID)
		}
		var run func(files ...string) (string, int)
		switch h.Language {
		case "system":
			argv := strings.Fields(h.Entry)
			if argv[0] != "mcpsum" {
				t.Fatalf("%s: entry %q does not run mcpsum", h.ID, h.Entry)
			}
			run = func(files ...string) (string, int) {
				_, stderr, code := mcpsum(t, dir, nil, append(argv[1:], files...)...)
				return stderr, code
			}
		case "script":
			run = func(files ...string) (string, int) {
				cmd := exec.Command(filepath.Join(clone, h.Entry), files...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if ee, ok := err.(*exec.ExitError); ok {
					return string(out), ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				return string(out), 0
			}
		default:
			t.Fatalf("%s: language %s (golang would install every command of the module, test servers too)", h.ID, h.Language)
		}
		if out, code := run("mcp.lock"); code != 0 {
			t.Errorf("%s on a good lock: exit %d\n%s", h.ID, code, out)
		}
		if out, code := run("mcp.lock", "sub/mcp.lock"); code != 1 || strings.Contains(out, "building mcpsum") {
			t.Errorf("%s on a tampered lock: exit %d, want 1 (and no second build)\n%s", h.ID, code, out)
		}
		if h.Language == "script" {
			built, _ := os.ReadDir(filepath.Join(clone, ".pre-commit-bin"))
			if len(built) != 1 || built[0].Name() != "mcpsum" {
				t.Errorf("%s built %v, want mcpsum alone", h.ID, built)
			}
		}
	}
}
