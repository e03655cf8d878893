package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// version is stamped at release time with -ldflags "-X main.version=v1.2.3".
var version = "devel"

// moduleVersion is version, or the module version from the build info when
// the binary came from 'go install module@version'.
func moduleVersion() string {
	if version != "devel" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

func (a *app) versionCommand() *ffcli.Command {
	return &ffcli.Command{
		Name:       "version",
		ShortUsage: "mcpsum version",
		ShortHelp:  "print the mcpsum version and the Go version it was built with",
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("version takes no arguments")
			}
			fmt.Fprintf(a.stdout, "mcpsum %s (%s, %s/%s)\n", moduleVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
