//go:build unix

package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
	go func() { done <- cfg.ReadEnvFiles(t.TempDir()) }()
	select {
	case notes := <-done:
		joined := strings.Join(notes, "\n")
		for _, want := range []string{"fifo: envFile: envFile " + filepath.Join(proj, "fifo.env") + " is a named pipe (FIFO), not a regular file",
			"zero: envFile: " + filepath.Join(proj, "zero.env") + " is outside the project"} {
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
