package jsonline

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// GrowPipe grows a pipe from either end, never shrinks one, and leaves a
// file that is not a pipe alone.
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	size := func() int {
		var n int
		rc, _ := r.SyscallConn()
		rc.Control(func(fd uintptr) { n, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if !GrowPipe(w, 256<<10) || size() != 256<<10 {
		t.Fatalf("after GrowPipe(256 KiB) of the write end: %d bytes", size())
	}
	if !GrowPipe(r, 128<<10) || size() != 256<<10 {
		t.Fatalf("GrowPipe(128 KiB) of a 256 KiB pipe: %d bytes, want it unchanged", size())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if GrowPipe(f, 256<<10) {
		t.Fatal("GrowPipe of a regular file reported a pipe")
	}
	if NewWriter(&struct{ *os.File }{w}).GrowPipe(512<<10) || size() != 256<<10 {
		t.Fatal("a Writer over something other than an *os.File grew the pipe")
	}
	if !NewWriter(w).GrowPipe(512<<10) || size() != 512<<10 {
		t.Fatalf("Writer.GrowPipe(512 KiB): %d bytes", size())
	}
}
