//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// --lockfile naming a FIFO hung show, verify and lock forever; /dev/zero and a
// 2 GiB file were read whole (issue 12.7). Each is refused at once with an
// error naming what the path is.
func TestLockfileNotRegularOrTooBig(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.lock")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.lock")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 2<<30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	cases := map[string]string{
		fifo:        "is a named pipe (FIFO), not a regular file",
		"/dev/zero": "is a character device, not a regular file",
		dir:         "is a directory, not a regular file",
		big:         "is 2147483648 bytes, over the 67108864-byte limit",
	}
	for path, want := range cases {
		for _, args := range [][]string{
			{"show"}, {"verify"}, {"lock"}, {"lock", "--name", "x", "--", "true"}, {"sign", "--key", "/nonexistent"},
		} {
			argv := append([]string{args[0], "--lockfile", path}, args[1:]...)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), argv, strings.NewReader(""), &stdout, &stderr) }()
			select {
			case code := <-done:
				out := stdout.String() + stderr.String()
				if code != 3 || !strings.Contains(out, want) {
					t.Errorf("mcpsum %s: exit %d, want 3 and %q in:\n%s", strings.Join(argv, " "), code, want, out)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("mcpsum %s hung", strings.Join(argv, " "))
			}
		}
	}
}
