package main

import (
	"context"
	"fmt"
	"runtime"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
)

// version is stamped at release time with -ldflags "-X main.version=v1.2.3".
var version = "devel"

// moduleVersion is version, or the module version from the build info.
func moduleVersion() string { return cli.Version(version) }

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
