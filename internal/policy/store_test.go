package policy

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/statefile"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// TestMain lets the test binary act as another proxy process:
//
//	MCPSUM_POLICY_MARK=STATE,SESSION,SERVER,N: mark N sources, one by one
//	MCPSUM_POLICY_HOLD=STATE: take the store's lock, print "held", wait to be killed
func TestMain(m *testing.M) {
	if v := os.Getenv("MCPSUM_POLICY_MARK"); v != "" {
		f := strings.Split(v, ",")
		n, _ := strconv.Atoi(f[3])
		st := NewStore(f[0])
		for i := 0; i < n; i++ {
			if err := st.Mark(Session{ID: f[1]}, f[2], fmt.Sprintf("tool-%d", i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	if v := os.Getenv("MCPSUM_POLICY_HOLD"); v != "" {
		st := NewStore(v)
		l, err := st.lock()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Hour)
		l.Unlock()
	}
	os.Exit(testbin.Run(m))
}

func child(t *testing.T, env string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	return cmd
}

func sess(id string) Session { return Session{ID: id} }

func TestStoreMarkCheckReset(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	if s := st.Check("a"); s.Tainted() {
		t.Fatalf("fresh session tainted: %+v", s)
	}
	if err := st.Mark(sess("a"), "web", "fetch"); err != nil {
		t.Fatal(err)
	}
	if err := st.Mark(sess("a"), "web", "fetch"); err != nil {
		t.Fatal(err)
	}
	if err := st.Mark(sess("a"), "files", "resources:*"); err != nil {
		t.Fatal(err)
	}
	s := st.Check("a")
	if !s.Tainted() || len(s.Sources) != 2 || s.Sources[0].Count != 2 || s.Sources[1].Label != "resources:*" {
		t.Fatalf("state: %+v", s)
	}
	if b := st.Check("b"); b.Tainted() {
		t.Fatal("another session is tainted too")
	}
	// A new Store (a restarted proxy) sees the same state.
	if s := NewStore(dir).Check("a"); !s.Tainted() {
		t.Fatal("state did not survive a new store")
	}
	info, err := os.Stat(filepath.Join(dir, "taint", "a.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", info, err)
	}
	if err := st.Reset("a"); err != nil {
		t.Fatal(err)
	}
	if s := st.Check("a"); s.Tainted() {
		t.Fatal("reset did not clear")
	}
	if err := st.Reset("a"); err == nil || !strings.Contains(err.Error(), "no such tainted session") {
		t.Fatalf("reset of a clean session: %v", err)
	}
	if err := st.Reset("../x"); err == nil {
		t.Fatal("reset accepted a path")
	}
}

// TestStoreFailsClosed: a state that cannot be read or parsed counts as
// tainted, and a later Mark keeps it tainted.
func TestStoreFailsClosed(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	if err := statefile.MkdirPrivate(st.Dir()); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"garbage":   "{not json",
		"empty":     "",
		"unknown":   `{"session":"s","clients":[],"sources":[{"server":"a","source":"b","first":"2026-01-01T00:00:00Z","last":"2026-01-01T00:00:00Z","count":1}],"x":1}`,
		"nosources": `{"session":"s","clients":[],"sources":[]}`,
		"othername": `{"session":"t","clients":[],"sources":[{"server":"a","source":"b","first":"2026-01-01T00:00:00Z","last":"2026-01-01T00:00:00Z","count":1}]}`,
		"trailing":  `{"session":"s","clients":[],"sources":[{"server":"a","source":"b","first":"2026-01-01T00:00:00Z","last":"2026-01-01T00:00:00Z","count":1}]} {}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(filepath.Join(st.Dir(), "s.json"), []byte(body), 0o600)
			s := st.Check("s")
			if !s.Tainted() || s.Problem == "" {
				t.Fatalf("corrupt state %q not tainted: %+v", body, s)
			}
		})
	}
	os.WriteFile(filepath.Join(st.Dir(), "s.json"), []byte("{"), 0o600)
	if err := st.Mark(sess("s"), "web", "fetch"); err != nil {
		t.Fatal(err)
	}
	s := st.Check("s")
	if s.Problem != "" || len(s.Sources) != 2 || !strings.Contains(s.Sources[0].Label, "unreadable") {
		t.Fatalf("after Mark over a corrupt state: %+v", s)
	}
	if os.Geteuid() != 0 {
		os.Chmod(filepath.Join(st.Dir(), "s.json"), 0)
		if s := st.Check("s"); !s.Tainted() || s.Problem == "" {
			t.Fatalf("unreadable state: %+v", s)
		}
	}
	// A directory where the file should be: unreadable, so tainted.
	os.Mkdir(filepath.Join(st.Dir(), "d.json"), 0o700)
	if s := st.Check("d"); !s.Tainted() {
		t.Fatal("a directory in place of the state counts as clean")
	}
}

// TestStoreConcurrentProcesses: four processes and four goroutines mark one
// session at once; no source is lost.
func TestStoreConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 25
	var cmds []*exec.Cmd
	for i := 0; i < 4; i++ {
		c := child(t, fmt.Sprintf("MCPSUM_POLICY_MARK=%s,shared,proc%d,%d", dir, i, n))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	st := NewStore(dir)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < n; j++ {
				if err := st.Mark(sess("shared"), fmt.Sprintf("gor%d", i), fmt.Sprintf("tool-%d", j)); err != nil {
					t.Error(err)
				}
				if s := st.Check("shared"); !s.Tainted() || s.Problem != "" {
					t.Errorf("a reader saw %+v mid-update", s)
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	s := st.Check("shared")
	if s.Problem != "" {
		t.Fatal(s.Problem)
	}
	// 8 writers x 25 labels = 200 distinct sources; the state keeps the
	// newest maxSources, each exactly once.
	if len(s.Sources) != maxSources {
		t.Fatalf("%d sources kept, want %d", len(s.Sources), maxSources)
	}
	seen := map[string]bool{}
	for _, src := range s.Sources {
		k := src.Server + "/" + src.Label
		if seen[k] || src.Count != 1 {
			t.Fatalf("source %s twice or counted %d", k, src.Count)
		}
		seen[k] = true
	}
}

// TestStoreConcurrentNoLostUpdate: with fewer sources than the bound, every
// writer's every source is there.
func TestStoreConcurrentNoLostUpdate(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for i := 0; i < 3; i++ {
		c := child(t, fmt.Sprintf("MCPSUM_POLICY_MARK=%s,shared,proc%d,%d", dir, i, 15))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if s := NewStore(dir).Check("shared"); len(s.Sources) != 45 {
		t.Fatalf("%d sources, want 45 (a lost update)", len(s.Sources))
	}
}

// TestStoreKilledLockHolder: a proxy killed while it holds the state lock
// does not block the next taint write.
func TestStoreKilledLockHolder(t *testing.T) {
	dir := t.TempDir()
	c := child(t, "MCPSUM_POLICY_HOLD="+dir)
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "held\n" {
		t.Fatalf("holder: %q", l)
	}
	st := NewStore(dir)
	st.LockWait = 200 * time.Millisecond
	if err := st.Mark(sess("s"), "web", "fetch"); err == nil {
		t.Fatal("Mark succeeded while another process held the lock")
	}
	if s := st.Check("s"); s.Tainted() {
		t.Fatal("a failed Mark left state behind")
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	st.LockWait = 5 * time.Second
	start := time.Now()
	if err := st.Mark(sess("s"), "web", "fetch"); err != nil {
		t.Fatalf("after the holder was killed: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Mark waited %v after the holder died", d)
	}
}

func TestStoreListAndCleanup(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	me, err := ProcessClient(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	live := Session{ID: "live", Client: me}
	gone := Session{ID: "gone", Client: Client{PID: me.PID, Start: me.Start + 1, Boot: me.Boot, Command: "old client"}}
	st.Mark(live, "web", "fetch")
	st.Mark(gone, "web", "fetch")
	os.WriteFile(filepath.Join(st.Dir(), "broken.json"), []byte("x"), 0o600)
	all, err := st.List()
	if err != nil || len(all) != 3 {
		t.Fatalf("list: %+v %v", all, err)
	}
	by := map[string]Listed{}
	for _, l := range all {
		by[l.Session] = l
	}
	if !by["live"].Live || by["gone"].Live || by["broken"].Problem == "" {
		t.Fatalf("list: %+v", by)
	}
	if by["live"].Clients[0].Command == "" {
		t.Fatal("the client's command is not recorded")
	}
	// Within the retention nothing goes; past it the gone session goes, the
	// live one and the unreadable one stay.
	if rm, _ := st.Cleanup(); len(rm) != 0 {
		t.Fatalf("removed %v within the retention", rm)
	}
	st.now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	rm, err := st.Cleanup()
	if err != nil || len(rm) != 1 || rm[0] != "gone" {
		t.Fatalf("cleanup removed %v, %v", rm, err)
	}
	if ids, err := st.ResetAll(); err != nil || len(ids) != 2 {
		t.Fatalf("reset all: %v %v", ids, err)
	}
	if all, _ := st.List(); len(all) != 0 {
		t.Fatalf("after reset all: %+v", all)
	}
}

func TestSession(t *testing.T) {
	for _, bad := range []string{"", ".hidden", "a/b", "../x", strings.Repeat("a", 65), "a b", "é"} {
		if ValidSessionID(bad) == nil {
			t.Errorf("session id %q accepted", bad)
		}
	}
	t.Setenv(EnvSession, "work-1")
	s, err := CurrentSession()
	if err != nil || s.ID != "work-1" || !s.Named {
		t.Fatalf("named: %+v %v", s, err)
	}
	t.Setenv(EnvSession, "../../etc")
	if _, err := CurrentSession(); err == nil {
		t.Fatal("a bad MCPSUM_SESSION was accepted")
	}
	os.Unsetenv(EnvSession)
	s, err = CurrentSession()
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if s.Client.PID != os.Getppid() || s.ID != fmt.Sprintf("%d-%d", s.Client.PID, s.Client.Start) || !s.Client.Alive() {
		t.Fatalf("session of the parent: %+v", s)
	}
}
