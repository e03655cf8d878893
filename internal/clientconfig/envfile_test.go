package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Cursor project's envFile with ${workspaceFolder}: the names it defines
// are read (for envPassthrough), the values are not kept anywhere.
func TestReadEnvFiles(t *testing.T) {
	proj := t.TempDir()
	cfgPath := filepath.Join(proj, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	os.WriteFile(filepath.Join(proj, ".env"), []byte("# secrets\nAPI_KEY=sk-live-SECRET\nexport REGION = eu\n\nAPI_KEY=again\n"), 0o600)
	src := []byte(`{"mcpServers": {
  "a": {"command": "node", "args": ["a.js"], "envFile": "${workspaceFolder}/.env", "env": {"X": "1"}},
  "b": {"command": "node", "envFile": "${env:HOME}/.env"},
  "c": {"command": "node", "envFile": "` + filepath.Join(proj, "missing.env") + `"},
  "d": {"command": "node", "cwd": "/srv/d"}
}}`)
	c, _ := Lookup("cursor")
	_, loc, err := Detect(cfgPath, src, proj)
	if err != nil || !loc.Project() {
		t.Fatalf("Detect: %+v %v", loc, err)
	}
	cfg, err := Parse(cfgPath, src, c, loc)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ProjectDir() != proj {
		t.Fatalf("ProjectDir = %s, want %s", cfg.ProjectDir(), proj)
	}
	notes := cfg.ReadEnvFiles(t.TempDir())
	if got := cfg.Entries[0].EnvFileNames; !slices.Equal(got, []string{"API_KEY", "REGION"}) {
		t.Errorf("names from envFile: %q", got)
	}
	if !slices.Equal(cfg.Entries[0].EnvNames, []string{"X"}) {
		t.Errorf("env names changed: %q", cfg.Entries[0].EnvNames)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "b: envFile") || !strings.Contains(notes[1], "c: envFile") {
		t.Errorf("notes %q", notes)
	}
	for _, n := range notes {
		if strings.Contains(n, "SECRET") {
			t.Errorf("a value leaked: %s", n)
		}
	}
	if strings.Contains(strings.Join(cfg.Entries[0].EnvFileNames, ""), "sk-live") {
		t.Error("a value was kept")
	}
	if cfg.Entries[3].Cwd != "/srv/d" {
		t.Errorf("cwd %q", cfg.Entries[3].Cwd)
	}
	// Rewriting still reads back (envFile names are not part of the file's entry).
	if _, _, err := cfg.Rewrite(map[Key][]string{{Name: "a"}: {"m", "proxy"}}); err != nil {
		t.Fatal(err)
	}
}

// The hole: a cloned repository's envFile that reaches out of the
// project (to ~/.docker/config.json, say), or a file inside it that is not
// a dotenv file, is not read into names, and no byte of it is shown.
func TestEnvFileStaysInItsFolder(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "src", "repo")
	os.MkdirAll(filepath.Join(proj, ".vscode"), 0o755)
	os.MkdirAll(filepath.Join(home, ".docker"), 0o700)
	secret := `{"auths": {"ghcr.io": {"auth": "c2VjcmV0LXRva2VuPQ=="}}}` + "\n"
	os.WriteFile(filepath.Join(home, ".docker", "config.json"), []byte(secret), 0o600)
	os.WriteFile(filepath.Join(proj, "creds.json"), []byte(secret), 0o600)
	os.Symlink(filepath.Join(home, ".docker", "config.json"), filepath.Join(proj, "linked.env"))
	os.WriteFile(filepath.Join(proj, "bad-name.env"), []byte("OK=1\nsk-live-SECRET=x\n"), 0o600)
	os.WriteFile(filepath.Join(proj, "good.env"), []byte("export TOKEN=sk-live-SECRET\n"), 0o600)
	cfgPath := filepath.Join(proj, ".vscode", "mcp.json")
	src := []byte(`{"servers": {
  "up": {"command": "node", "envFile": "${workspaceFolder}/../../.docker/config.json"},
  "abs": {"command": "node", "envFile": "` + filepath.Join(home, ".docker", "config.json") + `"},
  "link": {"command": "node", "envFile": "${workspaceFolder}/linked.env"},
  "json": {"command": "node", "envFile": "${workspaceFolder}/creds.json"},
  "name": {"command": "node", "envFile": "${workspaceFolder}/bad-name.env"},
  "good": {"command": "node", "envFile": "${workspaceFolder}/good.env"}
}}`)
	c, _ := Lookup("vscode")
	_, loc, _ := Detect(cfgPath, src, proj)
	cfg, err := Parse(cfgPath, src, c, loc)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(cfg.ReadEnvFiles(home), "\n")
	for _, want := range []string{
		"up: envFile: " + filepath.Join(home, ".docker", "config.json") + " is outside the project (" + proj + ")",
		"abs: envFile: " + filepath.Join(home, ".docker", "config.json") + " is outside the project",
		"link: envFile: " + filepath.Join(proj, "linked.env") + " is outside the project",
		"json: envFile: " + filepath.Join(proj, "creds.json") + ": line 1 is not NAME=value",
		"name: envFile: " + filepath.Join(proj, "bad-name.env") + ": line 2 is not NAME=value",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	for _, leak := range []string{"c2VjcmV0", "auths", "sk-live"} {
		if strings.Contains(notes, leak) {
			t.Errorf("a note shows file content %q:\n%s", leak, notes)
		}
	}
	for _, e := range cfg.Entries {
		want := []string(nil)
		if e.Name == "good" {
			want = []string{"TOKEN"}
		}
		if !slices.Equal(e.EnvFileNames, want) {
			t.Errorf("%s: names %q, want %q", e.Name, e.EnvFileNames, want)
		}
	}

	// A user config: its envFile must be in the config's own folder, and a
	// config right in the home folder may name none.
	user := filepath.Join(home, ".config", "Code", "User", "mcp.json")
	os.MkdirAll(filepath.Dir(user), 0o700)
	os.WriteFile(filepath.Join(filepath.Dir(user), "mcp.env"), []byte("KEY=v\n"), 0o600)
	usrc := []byte(`{"servers": {"in": {"command": "n", "envFile": "` + filepath.Join(filepath.Dir(user), "mcp.env") + `"},
 "out": {"command": "n", "envFile": "` + filepath.Join(proj, "good.env") + `"}}}`)
	ucfg, _ := Parse(user, usrc, c, Location{Base: XDGConfig, Rel: "Code/User/mcp.json"})
	unotes := strings.Join(ucfg.ReadEnvFiles(home), "\n")
	if !slices.Equal(ucfg.Entries[0].EnvFileNames, []string{"KEY"}) || !strings.Contains(unotes, "out: envFile: "+filepath.Join(proj, "good.env")+" is outside the config's folder") {
		t.Errorf("user config: names %q, notes %s", ucfg.Entries[0].EnvFileNames, unotes)
	}
	cc, _ := Lookup("claude-code")
	hcfg, _ := Parse(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": {"h": {"command": "n", "envFile": "`+filepath.Join(home, "x.env")+`"}}}`), cc, Location{Base: Home})
	if n := strings.Join(hcfg.ReadEnvFiles(home), ""); !strings.Contains(n, "a config in the home folder itself may not name an envFile") {
		t.Errorf("home-folder config: %s", n)
	}
}
