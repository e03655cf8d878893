package main

import (
	"context"
	"os"
	"sync"
	"syscall"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/sandbox"
)

func main() {
	// The sandbox re-executes this binary as pid 1 of a sandboxed server's
	// namespaces (a hidden stage that confines itself and then runs the
	// server); that stage never returns here.
	if handled, code := sandbox.Helper(os.Args[1:]); handled {
		os.Exit(code)
	}
	// Child subreaper, non-dumpable, environment block cleared (issue 12.5,
	// 12.6; what this machine cannot give is reported by `mcpsum doctor`),
	// and Ctrl-C/SIGTERM handled: set up on a goroutine of their own while
	// the command line and the lock are read. No child process starts
	// before they are in force (process.Before).
	ctx, installSignals, stop := cli.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	installPipe, stopPipe := func() {}, func() {}
	if len(os.Args) > 1 && os.Args[1] == "proxy" {
		// The proxy's SIGPIPE handler (runProxy) set up with the others:
		// each handler is a round trip to Go's signal thread, and this one
		// would otherwise be waited for just before the server starts.
		installPipe, stopPipe = cli.NotifyPipe()
	}
	process.Before(func() {
		_ = process.Guard()
		installSignals()
		installPipe()
	})
	mcpwire.ClientVersion = sync.OnceValue(moduleVersion) // read at first use
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopPipe()
	os.Exit(code)
}
