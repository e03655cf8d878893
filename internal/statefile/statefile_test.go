//go:build unix

package statefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestMain lets the test binary act as a lock holder in a child process:
// MCPSUM_STATEFILE_HOLD=DIR takes the lock on DIR, prints "held" and waits to
// be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("MCPSUM_STATEFILE_HOLD"); dir != "" {
		l, err := LockExclusive(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Hour) // until killed
		l.Unlock()
	}
	if path := os.Getenv("MCPSUM_STATEFILE_LOG"); path != "" {
		l, err := OpenLog(path, 4096)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; i < 500; i++ {
			if err := l.Append([]byte(fmt.Sprintf(`{"pid":%d,"i":%d,"pad":"%s"}`, os.Getpid(), i, strings.Repeat("x", 40)))); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(testbin.Run(m))
}

func child(t *testing.T, env string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

// TestKilledLockHolderReleases: a process killed with SIGKILL while it holds
// the lock does not deadlock the next one (flock is released by the kernel),
// and while it lives the lock really excludes others.
func TestKilledLockHolderReleases(t *testing.T) {
	dir := t.TempDir()
	cmd, out := child(t, "MCPSUM_STATEFILE_HOLD="+dir)
	line, err := out.ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("child did not take the lock: %q %v", line, err)
	}
	start := time.Now()
	_, err = LockTimeout(dir, 150*time.Millisecond)
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("lock held by a live process: got %v, want ErrLockTimeout", err)
	}
	if time.Since(start) < 150*time.Millisecond {
		t.Fatalf("gave up after %v, before the wait", time.Since(start))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l, err := LockTimeout(dir, 5*time.Second)
	if err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	l.Unlock()
	done := make(chan error, 1)
	go func() {
		l, err := LockExclusive(dir)
		if err == nil {
			l.Unlock()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LockExclusive blocked after the holder died")
	}
}

func TestLockExcludesGoroutines(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	inside, max := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				l, err := LockTimeout(dir, 10*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				inside++
				max = maxInt(max, inside)
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				l.Unlock()
			}
		}()
	}
	wg.Wait()
	if max != 1 {
		t.Fatalf("%d holders at once", max)
	}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func TestWriteAtomicModes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := WriteAtomic(p, []byte("one"), WriteOptions{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("two"), WriteOptions{Perm: 0o600}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	// A synced write keeps an existing file's mode (mcp.lock is the user's).
	os.Chmod(p, 0o640)
	if err := WriteAtomic(p, []byte("three"), WriteOptions{Perm: 0o644, Sync: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Fatalf("synced write changed the mode to %v", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left temporary files: %v", ents)
	}
}

// TestLogBoundedAcrossProcesses: four processes append 500 lines each to a
// log bounded at 4 KiB; the log and its one rotated copy stay within the
// bound, every line in them is whole, and the newest lines survive.
func TestLogBoundedAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var cmds []*exec.Cmd
	for i := 0; i < 4; i++ {
		cmd, _ := child(t, "MCPSUM_STATEFILE_LOG="+path)
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, p := range []string{path, path + ".1"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 4096 {
			t.Fatalf("%s is %d bytes, bound 4096", p, len(b))
		}
		for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if !bytes.HasPrefix(l, []byte(`{"pid":`)) || !bytes.HasSuffix(l, []byte(`"}`)) {
				t.Fatalf("torn line in %s: %q", p, l)
			}
		}
		total += len(b)
	}
	last, _ := os.ReadFile(path)
	if !bytes.Contains(last, []byte(`"i":499`)) {
		t.Fatalf("the newest lines are not in the log:\n%s", last)
	}
	if total < 4096 {
		t.Fatalf("only %d bytes kept", total)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 2 {
		t.Fatalf("files: %v", ents)
	}
}

// CreateExclusive and PublishExclusive never write through a link planted at
// their path (not even a dangling one, which a plain O_CREAT would create the
// target of), nor over an existing file; the mode is exactly the one asked for.
func TestCreateExclusiveFollowsNoLink(t *testing.T) {
	for name, create := range map[string]func(string, []byte, os.FileMode) error{
		"CreateExclusive": CreateExclusive, "PublishExclusive": PublishExclusive,
	} {
		t.Run(name, func(t *testing.T) { testExclusive(t, create) })
	}
}

func testExclusive(t *testing.T, create func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "authorized_keys")
	os.WriteFile(victim, []byte("MINE"), 0o600)
	link := filepath.Join(dir, "backup")
	os.Symlink(victim, link)
	if err := create(link, []byte("EVIL"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("create over a link = %v, want ErrExist", err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "created-by-link"), dangling)
	if err := create(dangling, []byte("EVIL"), 0o644); err == nil {
		t.Fatal("create wrote through a dangling link")
	}
	if b, _ := os.ReadFile(victim); string(b) != "MINE" {
		t.Fatalf("the link's target now holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "created-by-link")); err == nil {
		t.Fatal("a dangling link's target was created")
	}
	p := filepath.Join(dir, "new")
	old := syscall.Umask(0o077)
	err := create(p, []byte("DATA"), 0o644)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want exactly 0644", st.Mode().Perm())
	}
	if err := create(p, []byte("AGAIN"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("create over a file = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "DATA" {
		t.Fatalf("the file now holds %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		t.Errorf("left behind: %v", ents)
	}
}

// Of writers racing to publish one file, exactly one wins, and a reader that
// sees the file sees all of it.
func TestPublishExclusiveOneWinnerWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	data := bytes.Repeat([]byte("k"), 3*WriteChunk)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	stop := make(chan struct{})
	torn := make(chan int, 1)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if b, err := os.ReadFile(p); err == nil && len(b) != len(data) {
				select {
				case torn <- len(b):
				default:
				}
			}
		}
	}()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if PublishExclusive(p, data, 0o600) == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	if wins != 1 {
		t.Fatalf("%d writers won, want 1", wins)
	}
	select {
	case n := <-torn:
		t.Fatalf("a reader saw %d of %d bytes", n, len(data))
	default:
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// BeforeRename's error leaves the file and its folder as they were.
func TestWriteAtomicBeforeRenameAborts(t *testing.T) {
	for _, sync := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "config.json")
		os.WriteFile(p, []byte("OLD"), 0o600)
		stop := errors.New("changed")
		err := WriteAtomic(p, []byte("NEW"), WriteOptions{Perm: 0o600, Sync: sync, BeforeRename: func() error { return stop }})
		if !errors.Is(err, stop) {
			t.Fatalf("sync=%v: err %v", sync, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "OLD" {
			t.Fatalf("sync=%v: file %q", sync, b)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Fatalf("sync=%v: left %v", sync, ents)
		}
	}
}
