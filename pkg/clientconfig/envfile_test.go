package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A cloned repository's envFile (or its client config) that is a FIFO, or a
// symlink to /dev/zero, is refused with a note: reading it would block import
// forever, or fill memory.
func TestReadEnvFilesRefusesNonRegular(t *testing.T) {
	proj := t.TempDir()
	cfgPath := filepath.Join(proj, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(cfgPath), 0o755)
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo.env"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(proj, "zero.env")); err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"mcpServers": {
  "fifo": {"command": "node", "envFile": "${workspaceFolder}/fifo.env"},
  "zero": {"command": "node", "envFile": "${workspaceFolder}/zero.env"}
}}`)
	c, _ := Lookup("cursor")
	_, loc, _ := Detect(cfgPath, src, proj)
	cfg, err := Parse(cfgPath, src, c, loc)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []string, 1)
	go func() { done <- cfg.ReadEnvFiles() }()
	select {
	case notes := <-done:
		joined := strings.Join(notes, "\n")
		for _, want := range []string{"fifo: envFile: envFile " + filepath.Join(proj, "fifo.env") + " is a named pipe (FIFO), not a regular file",
			"zero: envFile: envFile " + filepath.Join(proj, "zero.env") + " is a character device"} {
			if !strings.Contains(joined, want) {
				t.Errorf("notes lack %q:\n%s", want, joined)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadEnvFiles still reading a FIFO / /dev/zero after 10 s")
	}

	// the client config itself: a FIFO named as the config is refused, not waited on
	fifoCfg := filepath.Join(proj, ".cursor", "fifo.json")
	if err := syscall.Mkfifo(fifoCfg, 0o600); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := Read(fifoCfg, c, loc); errc <- err }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO)") {
			t.Errorf("Read(FIFO) = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still waiting on a FIFO after 10 s")
	}
}
