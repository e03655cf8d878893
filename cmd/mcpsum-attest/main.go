// Command mcpsum-attest is mcpsum's signing helper: `mcpsum sign`,
// `mcpsum verify --signature` and `mcpsum proxy --require-signature` run it
// and pass it the exact bytes of the lockfile they read. It is the only
// binary that links sigstore-go, so mcpsum itself (lock, verify, show,
// proxy, the sandbox stage) starts like a small Go program. Install both with
//
//	go install github.com/mcpsum/mcpsum/cmd/...@latest
//
// The protocol is described in internal/attestproto; it is not meant to be
// run by hand.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpsum/mcpsum/pkg/attest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := attest.Serve(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Getenv)
	stop()
	os.Exit(code)
}
