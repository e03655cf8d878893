package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/internal/sandbox"
)

func (a *app) doctorCommand() *ffcli.Command {
	return &ffcli.Command{
		Name:       "doctor",
		ShortUsage: "mcpsum doctor",
		ShortHelp:  "report which sandbox confinement this machine can enforce",
		LongHelp: strings.TrimSpace(`
doctor checks the kernel features the sandbox needs (user namespaces,
Landlock ABI >= 3, seccomp) and starts a test sandbox to prove they work.
It also reports the protections mcpsum gives unsandboxed servers' surroundings
(child subreaper: no daemonised leftovers; non-dumpable: its environment is
hidden from same-user processes). Exit 0 when a server with policy.sandbox can
start here and every protection is in force, 3 otherwise (the report says why
and what one-time step fixes it).`),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("doctor takes no arguments")
			}
			r := sandbox.Status()
			fmt.Fprint(a.stdout, r.String())
			if protOK := process.WriteProtections(a.stdout); !r.Available || !protOK {
				return silent{code: exitUndecided}
			}
			return nil
		},
	}
}
