//go:build unix

package mcpwire

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/testbin"
)

// Real peers for the tests, built once per test binary into a temp dir (only
// when a test needs them), plus the npm servers installed in e2e/node_modules.

func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// goPeers maps a peer name to the package that builds it.
var goPeers = map[string]string{
	"gosdk-everything": "github.com/modelcontextprotocol/go-sdk/examples/server/everything",
	"mcpgo-everything": "github.com/mark3labs/mcp-go/examples/everything",
	"gosrv":            "github.com/mcpsum/mcpsum/e2e/servers/gosrv",
	"hostile":          "github.com/mcpsum/mcpsum/e2e/servers/hostile",
}

// peer returns the path of a built Go peer.
func peer(t testing.TB, name string) string {
	t.Helper()
	return testbin.Program(t, name, goPeers[name])
}

// nodeServer returns the argv of an npm server, skipping the test when it is
// not installed (failing instead when MCPSUM_E2E_REQUIRE=1).
func nodeServer(t testing.TB, name string, args ...string) []string {
	t.Helper()
	script, _ := filepath.Abs(filepath.Join("..", "..", "e2e", "node_modules", "@modelcontextprotocol", name, "dist", "index.js"))
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(script)
	}
	if err != nil {
		msg := fmt.Sprintf("npm server %s not available (%v); run `npm ci` in e2e/", name, err)
		if os.Getenv("MCPSUM_E2E_REQUIRE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return append([]string{node, script}, args...)
}

// starter returns a start func for Probe that records every process started.
type starter struct {
	spec process.Spec
	// zombiesOK: the server leaves grandchildren that Stop kills; reparented
	// to init, they may stay unreaped zombies (this container's init never
	// reaps), so require no live member instead of kill(-pgid, 0) == ESRCH.
	zombiesOK bool
	mu        sync.Mutex
	procs     []*process.Process
}

func (s *starter) start() (Transport, error) {
	p, err := process.Start(s.spec)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	return NewStdio(p, 0), nil
}

// startStdio starts spec and speaks to it over its stdio.
func startStdio(spec process.Spec) (*Stdio, error) {
	p, err := process.Start(spec)
	if err != nil {
		return nil, err
	}
	return NewStdio(p, 0), nil
}

func newStarter(argv ...string) *starter {
	return &starter{spec: process.Spec{Argv: argv, Env: process.Environ(nil)}}
}

// assertNoLeftovers fails unless every process group started is gone.
func (s *starter) assertNoLeftovers(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if s.zombiesOK {
			if process.GroupAlive(p.Pgid()) {
				t.Errorf("process group %d has live members", p.Pgid())
			}
			continue
		}
		assertGroupGone(t, p)
	}
}

// assertGroupGone checks kill(-pgid, 0) == ESRCH: nothing of the group is
// left, not even an unreaped zombie.
func assertGroupGone(t testing.TB, p *process.Process) {
	t.Helper()
	select {
	case <-p.Done():
	default:
		t.Errorf("process %d was not reaped", p.Pid())
		return
	}
	if err := syscall.Kill(-p.Pgid(), 0); err != syscall.ESRCH {
		t.Errorf("process group %d still exists (kill 0: %v)", p.Pgid(), err)
	}
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
