// Command mcpsum-attest is mcpsum's signing helper: `mcpsum sign`,
// `mcpsum verify --signature` and `mcpsum proxy --require-signature` run it
// and pass it the exact bytes of the lockfile they read. It is the only
// binary that links sigstore-go, so mcpsum itself (lock, verify, show,
// proxy, the sandbox stage) starts like a small Go program. Install both with
//
//	go install github.com/mcpsum/mcpsum/cmd/...@latest
//
// The protocol is described in internal/attestproto; it is not meant to be
// run by hand, except `mcpsum-attest version`.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/mcpsum/mcpsum/pkg/attest"
)

// version is stamped at release time with -ldflags "-X main.version=v1.2.3",
// like mcpsum's.
var version = "devel"

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "version" || os.Args[1] == "--version") {
		v := version
		if bi, ok := debug.ReadBuildInfo(); ok && v == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		fmt.Printf("mcpsum-attest %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := attest.Serve(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Getenv)
	stop()
	os.Exit(code)
}
