//go:build !linux

package process

import (
	"errors"
	"runtime"
	"syscall"
	"time"
)

// Guard has nothing to set up outside Linux: no child subreaper (a server
// that daemonises with setsid and a double fork can outlive mcpsum there; the
// process group is still ended) and no non-dumpable flag (other processes of
// the same user may read mcpsum's environment: only a sandbox keeps a server
// from them, and there is none outside Linux).
func Guard() error {
	return errors.New("on " + runtime.GOOS + " mcpsum cannot become a child subreaper or hide its environment from same-user processes")
}

// Protections reports that Guard's protections are missing here.
func Protections() ([]string, bool) {
	return []string{
		"child subreaper: NO (" + runtime.GOOS + "): a server that daemonises can outlive mcpsum",
		"non-dumpable: NO (" + runtime.GOOS + "): an unsandboxed server can read mcpsum's environment",
	}, false
}

func startGuarded(start func() error, pid func() int, idMaps bool) error { return start() }
func reaped(int)                                                         {}
func startKept(start func() error, _ func() int) error                   { return start() }
func keptDone(int)                                                       {}
func sweepOrphans(time.Duration) error                                   { return nil }

func hasIDMaps(*syscall.SysProcAttr) bool { return false }
