//go:build unix

package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(ok, "lockfile", 5); err != nil || string(b) != "12345" {
		t.Fatalf("ReadRegular at the cap: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadRegular(ok, "lockfile", 4); !errors.As(err, &tl) || !IsLimit(err) {
		t.Fatalf("over the cap: %v", err)
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), "lockfile", 4); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v, want fs.ErrNotExist", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRegular(fifo, "lockfile", 1<<20); done <- err }()
	select {
	case err := <-done:
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
			t.Fatalf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadRegular blocked on a FIFO without a writer")
	}
	if _, err := ReadRegular("/dev/zero", "signature bundle", 1<<20); !IsLimit(err) {
		t.Fatalf("/dev/zero: %v", err)
	}
}
