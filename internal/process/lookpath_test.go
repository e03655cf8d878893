//go:build unix

package process

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// An empty or relative PATH entry must not make Start run a program from the
// working directory (Go's os/exec refuses that too): the current directory is
// whatever folder the client started the proxy in.
func TestStartNeverSearchesWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	planted := filepath.Join(dir, "python3")
	if err := os.WriteFile(planted, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, path := range []string{":/nonexistent", "/nonexistent::", ".", "bin:."} {
		p, err := Start(Spec{Argv: []string{"python3"}, Env: []string{"PATH=" + path}})
		if err == nil {
			p.Stop(0)
			t.Fatalf("PATH=%q: Start ran python3 from the working directory", path)
		}
		if !errors.Is(err, exec.ErrNotFound) {
			t.Fatalf("PATH=%q: want a not-found error, got %v", path, err)
		}
	}
	// Relative paths with a slash resolve against Spec.Dir, not the working
	// directory.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "python3"), []byte("#!/bin/sh\necho other\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lines, _ := startLines(t, Spec{Argv: []string{"./python3"}, Dir: other, Env: []string{"PATH=/usr/bin:/bin"}})
	if len(lines) != 1 || lines[0] != "other" {
		t.Fatalf("./python3 with Dir=%s printed %q, want the file in Dir", other, lines)
	}
}
