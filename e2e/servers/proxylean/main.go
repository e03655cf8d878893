// Command proxylean is `mcpsum proxy` without the rest of mcpsum linked in
// (no sigstore, no CLI framework): the proxy benchmark runs it beside the
// real binary to separate the proxy's own cost from the binary's start-up.
// Usage: proxylean LOCKFILE NAME
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/internal/proxy"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: proxylean LOCKFILE NAME")
		os.Exit(2)
	}
	f, err := lockfile.Load(os.Args[1])
	if err != nil || f.Servers[os.Args[2]] == nil {
		fmt.Fprintln(os.Stderr, "proxylean:", err, "or no such server")
		os.Exit(3)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	err = proxy.Run(ctx, os.Stdin, os.Stdout, proxy.Options{
		Name: os.Args[2], Lockfile: os.Args[1], Entry: f.Servers[os.Args[2]],
		Pin: launch.Options{Lockfile: os.Args[1], Timeout: 30 * time.Second}, Stderr: os.Stderr,
	})
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "proxylean:", err)
		os.Exit(3)
	}
}
