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
	os.WriteFile(filepath.Join(proj, ".env"), []byte("# secrets\nAPI_KEY=sk-live-SECRET\nexport REGION = eu\n\nnot a line\nAPI_KEY=again\n"), 0o600)
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
	notes := cfg.ReadEnvFiles()
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
