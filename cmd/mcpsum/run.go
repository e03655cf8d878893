package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/locker"
	"github.com/mcpsum/mcpsum/internal/redact"
)

// app holds what every subcommand needs from the outside world.
type app struct {
	stdin io.Reader
	// stdout and stderr take out of everything printed the credentials
	// this process sends (internal/redact): a server that reflects a token
	// or a header value does not get it into a terminal or a CI log.
	stdout io.Writer
	stderr io.Writer
	// rawStdout is stdout as given: the proxy's JSON-RPC stream, forwarded
	// byte for byte (its own error messages are redacted where it builds them).
	rawStdout io.Writer
	// flagOut holds what the flag package wrote while parsing: the help
	// text -h asked for (it goes to stdout), or the usage it prints after a
	// parse error (dropped: the error names the mistake and the -h to run).
	flagOut bytes.Buffer
	live    atomic.Pointer[cli.Progress] // the run of locks under way (step)
}

// run is the whole program; main only adds the process boundary.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: redact.Writer{W: stdout}, stderr: redact.Writer{W: stderr}, rawStdout: stdout}
	stderr = a.stderr
	if err := cli.EnterBazelWorkingDir(); err != nil {
		return report(stderr, hint.Wrap(err, "run mcpsum from an existing folder, or unset BUILD_WORKING_DIRECTORY"))
	}
	root := a.rootCommand()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	args = cli.Interleave(root, args, "lock") // lock's operands are a server's argv
	err := root.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = a.flagOut.WriteTo(stdout)
		return exitOK
	}
	if err != nil {
		err = cli.FlagError(root, args, err)
	} else {
		err = cli.CheckNames(root, "help")
	}
	if err != nil {
		return report(stderr, &exitError{code: exitUsage, err: err})
	}
	cmd := cli.Path(root, args)
	var before locker.Snapshot // lock's file, to say what an interrupted lock left
	if cmd == "mcpsum lock" {
		i := slices.IndexFunc(root.Subcommands, func(c *ffcli.Command) bool { return c.Name == "lock" })
		before = locker.Stat(root.Subcommands[i].FlagSet.Lookup("lockfile").Value.String())
	}
	// A command stopped by Ctrl-C or SIGTERM is reported as that, not as
	// the "context canceled" its work failed with.
	if err = root.Run(ctx); err != nil && ctx.Err() != nil && cmd == "mcpsum lock" {
		err = &exitError{code: exitUndecided, err: before.Interrupted(context.Cause(ctx), err)}
	} else if err != nil && ctx.Err() != nil {
		err = &exitError{code: exitCode(err), err: fmt.Errorf("%s interrupted (%v): %w", strings.TrimPrefix(cmd, "mcpsum "), context.Cause(ctx), err)}
	}
	return report(stderr, err)
}

// help is 'mcpsum help [COMMAND...]': the command's help on stdout.
func (a *app) help(root *ffcli.Command, args []string) error {
	c, ok := cli.Find(root, args)
	if !ok {
		return &exitError{code: exitUsage, err: cli.UnknownCommand(c, cli.Path(root, args), args[len(strings.Fields(cli.Path(root, args)))-1])}
	}
	fmt.Fprintln(a.stdout, c.UsageFunc(c))
	return nil
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
			a.serveCommand(),
			a.showCommand(),
			a.suggestPolicyCommand(),
			a.taintCommand(),
			a.signCommand(),
			a.fleetCommand(),
			a.doctorCommand(),
			a.versionCommand(),
		},
		Exec: func(ctx context.Context, args []string) error {
			if len(args) > 0 && args[0] == "help" {
				return a.help(root, args[1:])
			}
			if len(args) > 0 {
				return &exitError{code: exitUsage, err: cli.UnknownCommand(root, "mcpsum", args[0])}
			}
			fmt.Fprintln(a.stderr, root.UsageFunc(root))
			return silent{code: exitUsage}
		},
	}
	cli.Wire(root, help, &a.flagOut)
	return root
}

// flagSet is a command's flags; cli.Wire guards them (a flag given twice
// is an error, not "the last one wins") once they are all defined.
func (a *app) flagSet(name string) *flag.FlagSet { return flag.NewFlagSet(name, flag.ContinueOnError) }

// lockfileFlag registers the --lockfile flag shared by most subcommands.
func lockfileFlag(fs *flag.FlagSet) *string {
	return fs.String("lockfile", "mcp.lock", "path of the lockfile")
}

// stringList is a list flag: repeatable, and each value (on the command
// line or in its twin) is a comma-separated list of names.
type stringList = cli.List
