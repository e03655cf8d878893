// Command mcpsum pins the surface of MCP servers in mcp.lock and checks
// servers against it. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpsum/mcpsum/pkg/mcpwire"
)

func main() {
	mcpwire.ClientVersion = moduleVersion()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
