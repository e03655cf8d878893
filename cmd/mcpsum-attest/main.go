// Command mcpsum-attest is mcpsum's signing helper: `mcpsum sign`,
// `mcpsum verify --signature` and `mcpsum proxy --require-signature` run it
// and pass it the exact bytes of the lockfile they read. It is the only
// binary that links sigstore-go, so mcpsum itself (lock, verify, show,
// proxy, the sandbox stage) starts like a small Go program. Install both
// from a clone with
//
//	go install ./cmd/...
//
// The protocol is described in internal/attestproto; it is not meant to be
// run by hand, except `mcpsum-attest version`.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/mcpsum/mcpsum/internal/attest"
)

// version is stamped at release time with -ldflags "-X main.version=v1.2.3",
// like mcpsum's.
var version = "devel"

func main() {
	if code, ok := forHumans(os.Args[1:], os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := attest.Serve(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Getenv)
	stop()
	os.Exit(code)
}

// usage is what a person who runs the helper by hand gets.
const usage = `mcpsum-attest is mcpsum's signing helper; you do not run it yourself.
These mcpsum commands run it:
  mcpsum sign [--lockfile F] [--key K] [--bundle B]
  mcpsum verify --signature B (--key PUB | --certificate-identity I --certificate-oidc-issuer O)
  mcpsum proxy --require-signature (--key PUB | --certificate-identity I --certificate-oidc-issuer O)
mcpsum finds it beside its own executable or on PATH. 'mcpsum-attest version'
prints its version.
`

// forHumans handles the invocations a person makes (version, -h, --help,
// no arguments, an unknown command) and reports whether it did; mcpsum's
// own calls (sign, verify) are left to the protocol.
func forHumans(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) > 0 && (args[0] == "sign" || args[0] == "verify") {
		return 0, false
	}
	if len(args) == 1 {
		switch args[0] {
		case "version", "--version":
			v := version
			if bi, ok := debug.ReadBuildInfo(); ok && v == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			fmt.Fprintf(stdout, "mcpsum-attest %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return 0, true
		case "-h", "-help", "--help", "help":
			fmt.Fprint(stdout, usage)
			return 0, true
		}
	}
	fmt.Fprint(stderr, usage)
	return 2, true
}
