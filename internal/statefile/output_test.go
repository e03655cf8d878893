//go:build unix

package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteOutputKeepsDevicesAndPipes: an output path that is a device
// node or a FIFO is written to, never replaced by a regular file (a
// `--sarif-file /dev/null` run as root used to turn the machine's /dev/null
// into a regular file).
func TestWriteOutputKeepsDevicesAndPipes(t *testing.T) {
	dir := t.TempDir()

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The reader opens without blocking, so the test cannot hang when the
	// writer (wrongly) never opens the FIFO.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteOutput(fifo, []byte("report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	got := make([]byte, 64)
	deadline := time.Now().Add(5 * time.Second)
	n := 0
	for n == 0 && time.Now().Before(deadline) {
		n, _ = r.Read(got)
		if n == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if string(got[:n]) != "report\n" {
		t.Fatalf("read %q from the FIFO", got[:n])
	}

	// A character device (as root, a copy of /dev/null in the temp dir).
	if os.Geteuid() == 0 {
		null := filepath.Join(dir, "null")
		if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Fatal(err)
		}
		if err := WriteOutput(null, []byte("gone"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(null); fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("the device node was replaced by %v", fi.Mode())
		}
	}

	// A symlink to a regular file: the target is replaced, the link stays.
	target := filepath.Join(dir, "target.sarif")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.sarif")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteOutput(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced by %v", fi.Mode())
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}

	// A new file, and a directory (refused).
	if err := WriteOutput(filepath.Join(dir, "new.sarif"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteOutput(dir, []byte("x"), 0o644); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

// TestWriteDerivedRefusesLinks: a path mcpsum chose that is a symlink (or a
// FIFO) is refused and what it names is kept; a regular file is replaced.
func TestWriteDerivedRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "bashrc")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	link := filepath.Join(dir, "mcp.lock.sigstore.json")
	os.Symlink(victim, link)
	err := WriteDerived(link, []byte("{}"), 0o644)
	var le *LinkError
	if !errors.As(err, &le) || le.Target != victim {
		t.Fatalf("WriteDerived through a symlink = %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	if err := WriteDerived(fifo, []byte("{}"), 0o644); err == nil {
		t.Fatal("WriteDerived wrote to a FIFO")
	}
	reg := filepath.Join(dir, "out.json")
	os.WriteFile(reg, []byte("old"), 0o644)
	if err := WriteDerived(reg, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(reg); string(b) != "new" {
		t.Fatalf("regular file not replaced: %q", b)
	}
}
