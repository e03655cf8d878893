package importer

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
	"github.com/mcpsum/mcpsum/internal/hint"
)

func parse(t *testing.T, client, path, src string) *clientconfig.Config {
	t.Helper()
	c, _ := clientconfig.Lookup(client)
	cfg, err := clientconfig.Parse(path, []byte(src), c, clientconfig.Location{Base: clientconfig.Home})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A remote entry plans as its URL and header variables; the same name in
// two configs joins one candidate when both say the same, and is skipped
// with a lock command that names the URL and headers when they differ.
// Nothing runs, and no header value reaches a plan line.
func TestPlanRemote(t *testing.T) {
	dir := t.TempDir()
	a := parse(t, "cursor", filepath.Join(dir, "a.json"), `{"mcpServers": {"saas": {"url": "https://saas.example/mcp", "headers": {"Authorization": "${env:SAAS}"}}}}`)
	b := parse(t, "windsurf", filepath.Join(dir, "b.json"), `{"mcpServers": {"saas": {"serverUrl": "https://saas.example/mcp", "headers": {"Authorization": "${env:SAAS}"}}}}`)
	c := parse(t, "claude-code", filepath.Join(dir, "c.json"), `{"mcpServers": {"saas": {"url": "https://other.example/mcp", "headers": {"X-Key": "sk-SECRET"}}, "saas2": {"url": "https://other.example/mcp"}}}`)
	groups, err := Plan(context.Background(), []*clientconfig.Config{a, b, c}, Options{Dirs: clientconfig.Dirs{Project: dir}, Lockfile: filepath.Join(dir, "mcp.lock"), Self: "/bin/mcpsum"})
	if err != nil {
		t.Fatal(err)
	}
	g := groups[0]
	if len(g.Cands) != 2 || g.Cands[0].Name != "saas" || len(g.Cands[0].Where) != 2 ||
		g.Cands[0].Target.URL != "https://saas.example/mcp" || g.Cands[0].Target.Headers["Authorization"] != "SAAS" || g.Cands[1].Name != "saas2" {
		t.Fatalf("candidates: %+v", g.Cands)
	}
	var all []string
	for _, s := range g.Sections {
		for _, l := range s.Lines {
			all = append(all, l.Verb+" "+l.Text)
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"lock saas: remote https://saas.example/mcp (headers: Authorization from $SAAS) (same as above)",
		`skip saas: https://other.example: header "X-Key" has a literal value`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-SECRET") {
		t.Errorf("a header value reached the plan:\n%s", text)
	}
	// The rewrite of the Cursor config hands the variable to the proxy.
	rws := Rewrites(g, "/bin/mcpsum", "")
	if len(rws) != 3 || rws[0].Err != nil || !strings.Contains(string(rws[0].Data), `"env": {"SAAS": "${env:SAAS}"}`) {
		t.Fatalf("rewrites: %d, first %+v", len(rws), rws[0])
	}
}

// Two configs with a different remote target under one name: the second is
// skipped, and the lock command it names carries the URL and headers.
func TestPlanRemoteCollision(t *testing.T) {
	dir := t.TempDir()
	a := parse(t, "cursor", filepath.Join(dir, "a.json"), `{"mcpServers": {"s": {"url": "https://one.example/mcp"}}}`)
	b := parse(t, "cursor", filepath.Join(dir, "b.json"), `{"mcpServers": {"s": {"url": "https://two.example/mcp", "headers": {"Authorization": "${env:T}"}}}}`)
	groups, err := Plan(context.Background(), []*clientconfig.Config{a, b}, Options{Dirs: clientconfig.Dirs{Project: dir}, Lockfile: "mcp.lock", Self: "/bin/mcpsum"})
	if err != nil {
		t.Fatal(err)
	}
	last := groups[0].Sections[1].Lines[0]
	want := "mcpsum lock --lockfile mcp.lock --name s-cursor --url https://two.example/mcp --header Authorization=T, then set this entry's command and args to: mcpsum proxy --lockfile mcp.lock --name s-cursor"
	if last.Verb != "skip" || !strings.Contains(last.Text, "different URL or headers") || !strings.Contains(last.Text, want) {
		t.Errorf("collision line: %+v", last)
	}
}

// import --client C without a config of C names the files it looked for
// by their paths (was each location relative to a base it did not name:
// Cursor's user and project files both as ".cursor/mcp.json").
func TestNoConfigNamesWhereItLooked(t *testing.T) {
	t.Parallel()
	home, project := t.TempDir(), t.TempDir()
	dirs := clientconfig.Dirs{OS: "linux", Home: home, XDGConfig: filepath.Join(home, ".config"), Project: project}
	for client, want := range map[string][]string{
		"cursor":         {filepath.Join(home, ".cursor", "mcp.json"), filepath.Join(project, ".cursor", "mcp.json")},
		"claude-desktop": {filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")},
	} {
		c, _ := clientconfig.Lookup(client)
		_, err := ReadConfigs(dirs, c, "")
		if err == nil {
			t.Fatalf("%s: no error without a config", client)
		}
		for _, p := range want {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: %v; want it to name %s", client, err, p)
			}
		}
	}
}

// import FILE of a file that is not there says so and names the command
// that lists the configs found (was the bare "open FILE: no such file").
func TestConfigFileMissing(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	_, err := ReadConfigs(clientconfig.Dirs{OS: "linux"}, nil, file)
	if err == nil || err.Error() != "no client config at "+file || !slices.ContainsFunc(hint.Of(err), func(h string) bool { return strings.HasPrefix(h, "'mcpsum import' lists") }) {
		t.Errorf("a missing FILE: %v (hints %q)", err, hint.Of(err))
	}
}
