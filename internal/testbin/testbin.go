package testbin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	builds = map[string]*build{} // by output path
)

type build struct {
	once sync.Once
	err  error
}

// Build returns out, the program pkg built there by GoBuild (the toolchain
// and cgo setting that built the test; linked from the shared cache when it
// is up to date there), once per test binary however many tests ask,
// concurrently or not. A failed build fails every test that asks.
func Build(t testing.TB, out, pkg string) string {
	t.Helper()
	mu.Lock()
	b := builds[out]
	if b == nil {
		b = new(build)
		builds[out] = b
	}
	mu.Unlock()
	b.once.Do(func() { b.err = GoBuild(out, pkg) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return out
}

// dir is the folder of Program's builds (Run makes it).
var dir string

// Run runs the tests of m isolated from the real user's folders (Isolate:
// their own HOME, XDG folders and TMPDIR, checked after for writes into the
// real ones) with a folder for the programs Program builds, removes both,
// and returns the exit code: a package's TestMain is
//
//	func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }
//
// after whatever it does first when the test binary is re-run as a helper
// process. Every package with tests has one (TestEveryPackageIsolated).
//
// setup, if any, runs inside the isolation before the tests (e2e builds
// its binaries there); an error from it is printed and no test runs.
func Run(m *testing.M, setup ...func() error) int {
	iso, err := Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin: isolating the tests:", err) // before any test ran: nothing else reports it
		return 1
	}
	code := runIn(m, iso, setup)
	if err := iso.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		code = 1
	}
	return code
}

func runIn(m *testing.M, iso *Isolation, setup []func() error) int {
	d, err := os.MkdirTemp("", "testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir = d
	defer os.RemoveAll(d)
	current = iso
	defer runAtExit()
	for _, f := range setup {
		if err := f(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// current is the isolation Run set up (nil outside Run).
var current *Isolation

var (
	exitMu sync.Mutex
	atExit []func()
)

// AtExit registers f to run after the tests of Run, before it removes the
// test process's folders (what a package shares across its tests and
// stops once: a database server), last registered first. It reports
// false, registering nothing, outside Run: the caller then cleans up per
// test.
func AtExit(f func()) bool {
	exitMu.Lock()
	defer exitMu.Unlock()
	if current == nil {
		return false
	}
	atExit = append(atExit, f)
	return true
}

func runAtExit() {
	exitMu.Lock()
	fs := atExit
	atExit = nil
	exitMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// Current returns the isolation of this test process: the folders Run
// gave it and the real ones it hides. It fails the test outside Run.
func Current(t testing.TB) *Isolation {
	t.Helper()
	if current == nil {
		t.Fatal("testbin.Current needs the package's TestMain to run its tests with testbin.Run")
	}
	return current
}

// Program returns pkg built as name into Run's folder, once per test
// binary (Build), only when a test asks.
func Program(t testing.TB, name, pkg string) string {
	t.Helper()
	if dir == "" {
		t.Fatal("testbin.Program needs the package's TestMain to run its tests with testbin.Run")
	}
	return Build(t, filepath.Join(dir, name), pkg)
}

// SyncBuffer is a bytes.Buffer that one goroutine may write while another
// reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// M is m for runners that take a testscript.TestingM (testscript.Main):
// its Run runs m's tests as Run does.
func M(m *testing.M) interface{ Run() int } { return runner{m} }

type runner struct{ m *testing.M }

func (r runner) Run() int { return Run(r.m) }
