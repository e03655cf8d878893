// Package locktest locks proxytest's server (the test binary re-executed
// with proxytest.ServeFlag) for the tests of internal/proxy and
// internal/serve. Only tests import it; proxytest itself stays free of
// mcpsum's packages (e2e/servers/proxysrv links it).
package locktest

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/proxy/proxytest"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Command is the argv that starts this test binary as proxytest's server
// with args.
func Command(t testing.TB, args ...string) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe, proxytest.ServeFlag}, args...)
}

// Lock locks the test server started with args, like `mcpsum lock`, once
// per args in this test process: the tests lock the same few server
// variants again and again, and each lock started a server. Every call
// gets its own entry, read back from the lockfile bytes the lock makes (as
// a proxy reads its entry), so a test may change it.
func Lock(t testing.TB, args ...string) *lockfile.Server {
	t.Helper()
	v, _ := locks.LoadOrStore(strings.Join(args, "\x00"), &lockOnce{})
	l := v.(*lockOnce)
	l.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		e, err := launch.Lock(ctx, "t", Command(t, args...), nil, "", nil, launch.Options{Timeout: 20 * time.Second})
		if err == nil {
			l.data, err = lockfile.Marshal(&lockfile.File{Servers: map[string]*lockfile.Server{"t": e}})
		}
		l.err = err
	})
	if l.err != nil {
		t.Fatalf("lock: %v", l.err)
	}
	f, err := lockfile.Parse("mcp.lock", l.data)
	if err != nil {
		t.Fatal(err)
	}
	return f.Servers["t"]
}

// locks holds Lock's locks by args (a *lockOnce each).
var locks sync.Map

type lockOnce struct {
	once sync.Once
	data []byte // the lockfile holding the entry "t"
	err  error
}
