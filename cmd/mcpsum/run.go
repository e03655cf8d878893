package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v3"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// app holds what every subcommand needs from the outside world.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// strictShadow: lock or import --strict, shadowing between servers
	// refuses the write (pkg/review).
	strictShadow bool
	// accept: lock --accept KIND, re-lock only entries whose every change
	// is of that kind (lock_accept.go).
	accept string
}

// run is the whole program; main only adds the process boundary.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	if err := root.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return report(stderr, usageErr("%v (run 'mcpsum -h' for usage)", err))
	}
	return report(stderr, root.Run(ctx))
}

func (a *app) rootCommand() *ffcli.Command {
	fs := a.flagSet("mcpsum")
	var root *ffcli.Command
	root = &ffcli.Command{
		Name:       "mcpsum",
		ShortUsage: "mcpsum <command> [flags]",
		ShortHelp:  "pin and check the tools, prompts and resources of MCP servers",
		LongHelp: strings.TrimSpace(`
mcpsum is go.sum for MCP servers. 'mcpsum lock' runs each server and pins its
exact command and its whole surface (tools, prompts, resources, templates,
instructions) in mcp.lock with RFC 8785 digests; commit it and review its diffs.
'mcpsum verify' re-checks servers against the lock (a CI gate), and
'mcpsum proxy' sits between an MCP client and a server, serving the locked
surface and quarantining a server whose definitions drifted.

Every flag has an environment twin: --timeout-secs is MCPSUM_TIMEOUT_SECS.
A flag on the command line wins over its twin. A twin holds one value, commas
and all; a list flag (--env) takes a comma-separated list, in its twin too.
Exit codes: 0 ok, 1 security verdict (drift, digest mismatch, bad signature,
policy denial), 2 usage, 3 could not decide (I/O, server failed, timeout).`),
		FlagSet: fs,
		Subcommands: []*ffcli.Command{
			a.lockCommand(),
			a.importCommand(),
			a.verifyCommand(),
			a.proxyCommand(),
			a.showCommand(),
			a.suggestPolicyCommand(),
			a.taintCommand(),
			a.signCommand(),
			a.doctorCommand(),
			a.versionCommand(),
		},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 {
				return usageErr("unknown command %q (run 'mcpsum -h' for the list)", args[0])
			}
			fmt.Fprintln(a.stderr, usage(root))
			return silent{code: exitUsage}
		},
	}
	root.UsageFunc = usage
	for _, c := range root.Subcommands {
		c.UsageFunc = usage
		c.Options = envTwins()
		if c.FlagSet == nil {
			c.FlagSet = a.flagSet(c.Name)
		}
		c.FlagSet.SetOutput(a.stderr)
		for _, sc := range c.Subcommands {
			sc.UsageFunc = usage
			sc.Options = envTwins()
			sc.FlagSet.SetOutput(a.stderr)
		}
	}
	root.Options = envTwins()
	return root
}

// envTwins makes every flag readable from MCPSUM_<FLAG_NAME>, used when
// the flag is not on the command line. A twin's value is one value, commas
// and all (MCPSUM_LOCKFILE=dir/a,b.lock names that file); only a list flag
// (stringList) splits it, in its own Set.
func envTwins() []ff.Option {
	return []ff.Option{ff.WithEnvVarPrefix("MCPSUM")}
}

func (a *app) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	return fs
}

// lockfileFlag registers the --lockfile flag shared by most subcommands.
func lockfileFlag(fs *flag.FlagSet) *string {
	return fs.String("lockfile", "mcp.lock", "path of the lockfile")
}

// stringList is a list flag: repeatable, and each value (on the command
// line or in its twin) is a comma-separated list. Its items are names,
// which hold no commas.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		if item == "" {
			return fmt.Errorf("empty item in the list %q (separate names with single commas)", v)
		}
		*s = append(*s, item)
	}
	return nil
}
