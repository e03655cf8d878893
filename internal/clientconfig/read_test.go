package clientconfig

import (
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// want is one expected entry: "name|status|argv joined by space|env names".
type fixture struct {
	client string
	path   string
	want   []string
}

var fixtures = []fixture{
	{"claude-desktop", "clients/claude-desktop/claude_desktop_config.json", []string{
		"memory|lockable|npx -y @modelcontextprotocol/server-memory|MEMORY_FILE_PATH",
		"fs|lockable|/usr/bin/node /opt/mcp/fs/dist/index.js /home/u/Documents|",
	}},
	{"claude-code", "clients/claude-code/proj/.mcp.json", []string{
		"git|lockable|uvx mcp-server-git --repository .|",
		"api|remote refused||",
		"tokened|interpolated|node server.js --token ${GITHUB_TOKEN}|",
	}},
	{"claude-code", "clients/claude-code/.claude.json", []string{
		"time|lockable|uvx mcp-server-time==2026.8.18|",
		"/home/u/proj:seq|lockable|node /opt/seq/index.js|DISABLE_THOUGHT_LOGGING",
	}},
	{"cursor", "clients/cursor/.cursor/mcp.json", []string{
		"everything|lockable|npx -y @modelcontextprotocol/server-everything@2026.1.26|",
		"remote|remote|https://mcp.example.com/sse|",
	}},
	{"vscode", "clients/vscode/.vscode/mcp.json", []string{
		"github|lockable|docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr.io/github/github-mcp-server|GITHUB_PERSONAL_ACCESS_TOKEN",
		"local|interpolated|${workspaceFolder}/bin/server|",
		"memory|lockable|node /opt/memory/dist/index.js|",
	}},
	{"windsurf", "clients/windsurf/mcp_config.json", []string{
		"fetch|lockable|uvx mcp-server-fetch@latest|",
		"docs|remote|https://docs.example.com/mcp|",
	}},
	{"devin", "clients/devin/mcp_config.json", []string{
		"fetch|lockable|uvx mcp-server-fetch@latest|",
		"docs|remote|https://docs.example.com/mcp|",
	}},
	{"gemini", "clients/gemini/.gemini/settings.json", []string{
		"pythonTools|lockable|python -m my_mcp_server --port 8080|API_KEY DATABASE_URL",
		"home|interpolated|$HOME/bin/server|",
		"http|remote|http://localhost:3000/mcp|",
	}},
	{"zed", "clients/zed/settings.json", []string{
		"old-style|lockable|node /opt/old/index.js|OLD_TOKEN",
		"new-style|lockable|node /opt/new/index.js|",
		"from-ext|from an extension||",
	}},
	{"codex", "clients/codex/.codex/config.toml", []string{
		"docs|lockable|npx -y @upstash/context7-mcp@1.0.14|CONTEXT7_KEY HOME_TOKEN",
		"odd name|lockable|node x.js|",
		"remote|remote refused||",
		"noargs|lockable|/usr/local/bin/srv|SECRET_A",
	}},
	{"cline", "clients/cline/cline_mcp_settings.json", []string{
		"weather|lockable|node /Users/u/mcp/weather/build/index.js|OPENWEATHER_API_KEY",
		"sse|remote refused||",
	}},
	{"cline", "clients/cline4/.cline/data/settings/cline_mcp_settings.json", []string{
		"fs|lockable|node /opt/fs/index.js|PATH",
		"web|remote|https://mcp.example.com/mcp|",
	}},
	{"lmstudio", "clients/lmstudio/.lmstudio/mcp.json", []string{
		"hf|remote|https://huggingface.co/mcp|",
		"tools|lockable|bunx some-mcp-tools|",
	}},
	{"claude-desktop", "hostile/mcp.json", []string{
		"dup|invalid||", "dup|invalid||",
		"a;rm -rf ~ #|lockable|true|",
		"no-command|invalid||",
		"empty-command|invalid||",
		"args-not-array|invalid||",
		"arg-not-string|invalid||",
		"env-not-object|invalid||",
		"not-an-object|invalid||",
		"cursor-remote|remote refused||",
		"windsurf-remote|remote|https://ws.example.com/mcp|",
		"gemini-remote|remote|https://g.example.com/mcp|",
		"sse-typed|remote refused||",
		`ok|lockable|node /srv/ok.js --flag="quoted" \ backslash|TOKEN_A TOKEN_B`,
		"no-args|lockable|/usr/bin/srv|Z",
		"unicode-ü|lockable|node héllo ✓ 😀|",
		"already|wrapped|/usr/local/bin/mcpsum proxy --lockfile /p/mcp.lock --name already|",
	}},
}

func describeEntry(e Entry) string {
	name := e.Name
	if e.Scope != "" {
		name = e.Scope + ":" + name
	}
	argv, status, env := "", e.Status.String(), strings.Join(e.EnvNames, " ")
	if e.Status == Lockable || e.Status == Wrapped || e.Status == Interpolated {
		argv = strings.Join(e.Argv, " ")
	}
	if e.Status == Remote {
		argv = e.Endpoint.URL
		var h []string
		for n, v := range e.Endpoint.Headers {
			h = append(h, n+"="+v)
		}
		slices.Sort(h)
		env = strings.Join(h, " ")
		if e.Endpoint.Refused != "" {
			status += " refused"
		}
	}
	return fmt.Sprintf("%s|%s|%s|%s", name, status, argv, env)
}

func readFixture(t *testing.T, f fixture) *Config {
	t.Helper()
	path := filepath.Join("testdata", f.path)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, loc, err := Detect(path, src, "")
	if f.path == "hostile/mcp.json" {
		c, _ = Lookup("claude-desktop") // mcp.json is ambiguous by name; the test names it
		err = nil
	}
	if err != nil {
		t.Fatalf("Detect(%s): %v", path, err)
	}
	if c.Name != f.client {
		t.Fatalf("Detect(%s) = %s, want %s", path, c.Name, f.client)
	}
	cfg, err := Parse(path, src, c, loc)
	if err != nil {
		t.Fatalf("Parse(%s): %v", path, err)
	}
	return cfg
}

// Every client format in the table reads into the expected entries, and
// the remote entries keep only scheme and host.
func TestReadFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range fixtures {
		t.Run(f.path, func(t *testing.T) {
			cfg := readFixture(t, f)
			seen[f.client] = true
			var got []string
			for _, e := range cfg.Entries {
				got = append(got, describeEntry(e))
				if e.Status == Remote && strings.ContainsAny(e.Endpoint.Host, "?@") {
					t.Errorf("%s: remote host %q keeps more than scheme and host", e.Name, e.Endpoint.Host)
				}
				if e.Status == Remote && (e.Endpoint.Refused == "") == (e.Endpoint.URL == "") {
					t.Errorf("%s: remote entry with URL %q and refusal %q (want exactly one)", e.Name, e.Endpoint.URL, e.Endpoint.Refused)
				}
				if e.Status != Lockable && e.Status != Remote && e.Note == "" {
					t.Errorf("%s: status %s without a note", e.Name, e.Status)
				}
			}
			if !slices.Equal(got, f.want) {
				t.Errorf("entries:\n got %q\nwant %q", got, f.want)
			}
		})
	}
	for _, c := range Clients {
		if !seen[c.Name] {
			t.Errorf("client %s has no fixture", c.Name)
		}
	}
}

// Values of env variables never reach anything the package returns.
func TestEnvValuesNeverRead(t *testing.T) {
	for _, f := range fixtures {
		cfg := readFixture(t, f)
		for _, e := range cfg.Entries {
			dump := fmt.Sprintf("%+v %v %v", e.Argv, e.Endpoint.Headers, e.Endpoint.HeaderEnv) + e.Note + e.Endpoint.Host + e.Endpoint.URL + e.Endpoint.Refused + strings.Join(e.EnvNames, ",")
			for _, secret := range []string{"secret-a", "secret-b", "secret-z", "never-read", "a-value", "/home/u/secret-memory.json", "t0k3n", "SECRET-IN-URL", "zzz"} {
				if strings.Contains(dump, secret) {
					t.Errorf("%s/%s: a value (%q) leaked into %q", f.path, e.Name, secret, dump)
				}
			}
		}
	}
}

func TestEmptyAndBroken(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	for _, src := range []string{"", "  \n\t", "\ufeff\n"} {
		cfg, err := Parse("x.json", []byte(src), c, Location{})
		if err != nil || !cfg.Empty || len(cfg.Entries) != 0 {
			t.Errorf("Parse(%q) = %+v, %v; want an empty config", src, cfg, err)
		}
	}
	for src, want := range map[string]string{
		"// only a comment\n":     "no JSON value",
		`{"mcpServers": {"a": {}`: "want , or }",
		`{"mcpServers": []}`:      "mcpServers is array, want an object",
		`[1]`:                     "top level is array",
		`{"mcpServers": {"a": {"command": "x"}}} junk`: "after the top-level value",
		`{"a": 'single'}`:             "want a JSON value",
		"{\"a\": \"unterminated\n\"}": "unterminated string",
	} {
		_, err := Parse("x.json", []byte(src), c, Location{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want it to say %q", src, err, want)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := map[string]string{
		"/home/u/Library/Application Support/Claude/claude_desktop_config.json":                                       "claude-desktop",
		`C:/Users/u/AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json`: "claude-desktop",
		"/home/u/.claude.json":                                       "claude-code",
		"/p/.mcp.json":                                               "claude-code",
		"/p/.cursor/mcp.json":                                        "cursor",
		"/p/.vscode/mcp.json":                                        "vscode",
		"/home/u/.config/Code/User/mcp.json":                         "vscode",
		"/home/u/.codeium/windsurf/mcp_config.json":                  "windsurf",
		"/home/u/.config/devin/mcp_config.json":                      "devin",
		"/p/.gemini/settings.json":                                   "gemini",
		"/home/u/.config/zed/settings.json":                          "zed",
		"/home/u/.codex/config.toml":                                 "codex",
		"/x/saoudrizwan.claude-dev/settings/cline_mcp_settings.json": "cline",
		"/home/u/.lmstudio/mcp.json":                                 "lmstudio",
	}
	for path, want := range cases {
		c, _, err := Detect(path, nil, "")
		if err != nil || c.Name != want {
			t.Errorf("Detect(%s) = %v, %v; want %s", path, c, err, want)
		}
	}
	// Shared names are settled by content.
	c, _, err := Detect("/tmp/settings.json", []byte(`{"context_servers": {}}`), "")
	if err != nil || c.Name != "zed" {
		t.Errorf("settings.json with context_servers: %v, %v", c, err)
	}
	c, _, err = Detect("/tmp/mcp.json", []byte(`{"servers": {}}`), "")
	if err != nil || c.Name != "vscode" {
		t.Errorf("mcp.json with servers: %v, %v", c, err)
	}
	if _, _, err := Detect("/tmp/notes.txt", []byte(`hello`), ""); err == nil || !strings.Contains(hint.Lines(err, ""), "\nhint: name the client with --client") {
		t.Errorf("unknown file: %v, want an error naming --client", err)
	}
	// A project file under the project folder is a project location.
	_, loc, _ := Detect("/p/.vscode/mcp.json", nil, "/p")
	if !loc.Project() {
		t.Errorf("/p/.vscode/mcp.json in project /p: location %+v is not a project location", loc)
	}
	_, loc, _ = Detect("/elsewhere/.vscode/mcp.json", nil, "/p")
	if loc.Project() {
		t.Errorf("another project's file counted as this project's")
	}
}

// Find looks where the table says, per OS, including the MSIX folder.
func TestFind(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(home, "AppData", "Local")
	msix := filepath.Join(local, "Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	write(msix)
	write(filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"))
	write(filepath.Join(home, ".claude.json"))
	write(filepath.Join(proj, ".mcp.json"))
	write(filepath.Join(proj, ".vscode", "mcp.json"))

	win := Dirs{OS: "windows", Home: home, LocalAppData: local, AppData: filepath.Join(home, "AppData", "Roaming"), Project: proj}
	cd, _ := Lookup("claude-desktop")
	got := Find(win, cd)
	if len(got) != 1 || got[0].Path != msix {
		t.Errorf("windows claude-desktop: %+v, want the MSIX file", got)
	}
	mac := Dirs{OS: "darwin", Home: home, Project: proj}
	if got := Find(mac, cd); len(got) != 1 || !strings.Contains(got[0].Path, "Application Support") {
		t.Errorf("darwin claude-desktop: %+v", got)
	}
	all := Find(mac, nil)
	var names []string
	for _, f := range all {
		names = append(names, f.Client.Name+":"+filepath.Base(f.Path)+":"+fmt.Sprint(f.Location.Project()))
	}
	want := []string{"claude-desktop:claude_desktop_config.json:false", "claude-code:.mcp.json:true", "claude-code:.claude.json:false", "vscode:mcp.json:true"}
	if !slices.Equal(names, want) {
		t.Errorf("Find(all) = %q, want %q", names, want)
	}
}
