//go:build unix

package statefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A symbolic link at an append-only state file's path (planted to make
// mcpsum write into another of the user's files) is refused, and the link's
// target is left as it was, even when it does not exist yet.
func TestOpenAppendRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "victim")
	if err := os.WriteFile(target, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "audit.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		f.Close()
		t.Fatalf("OpenAppend(symlink) = %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o644 {
		t.Fatalf("the link's target mode changed: %v", fi.Mode())
	}

	dangling := filepath.Join(dir, "dangling.log")
	missing := filepath.Join(dir, "not-yet")
	if err := os.Symlink(missing, dangling); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(dangling); err == nil {
		f.Close()
		t.Fatal("OpenAppend followed a dangling link")
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Fatalf("the dangling link's target was created: %v", err)
	}
}

// A new file is 0600 and appended to; a FIFO and another user's file are
// refused.
func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "access.log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenAppend(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line)
		f.Close()
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Fatalf("contents %q", b)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(fifo); err == nil {
		f.Close()
		t.Fatal("OpenAppend opened a FIFO")
	}

	if os.Geteuid() != 0 {
		return // only root can give a file away
	}
	theirs := filepath.Join(dir, "theirs.log")
	os.WriteFile(theirs, nil, 0o666)
	if err := os.Chown(theirs, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenAppend(theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 12345") {
		f.Close()
		t.Fatalf("OpenAppend(another user's file) = %v", err)
	}
}
