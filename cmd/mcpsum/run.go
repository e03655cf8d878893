package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3"
	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
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
	// strictShadow: lock or import --strict, shadowing between servers
	// refuses the write (locker.Options.Strict; the shadowing is internal/review's).
	strictShadow bool
	// accept: lock --accept KIND, re-lock only entries whose every change
	// is of that kind (lockHooks, verify.Accept).
	accept string
}

// run is the whole program; main only adds the process boundary.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: redact.Writer{W: stdout}, stderr: redact.Writer{W: stderr}, rawStdout: stdout}
	stderr = a.stderr
	if err := enterBazelWorkingDir(); err != nil {
		return report(stderr, err)
	}
	root := a.rootCommand()
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if err := root.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = a.flagOut.WriteTo(stdout)
			return exitOK
		}
		msg := strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
		return report(stderr, usageErr("%s (run '%s -h' for usage)", msg, cli.Path(root, args)))
	}
	cmd := cli.Path(root, args)
	lockfilePath, before := "", locker.Snapshot{}
	if cmd == "mcpsum lock" {
		i := slices.IndexFunc(root.Subcommands, func(c *ffcli.Command) bool { return c.Name == "lock" })
		lockfilePath = root.Subcommands[i].FlagSet.Lookup("lockfile").Value.String()
		before = locker.Stat(lockfilePath)
	}
	err := root.Run(ctx)
	if err != nil && ctx.Err() != nil {
		err = interrupted(ctx, cmd, lockfilePath, before, err)
	}
	return report(stderr, err)
}

// interrupted reports a command stopped by Ctrl-C or SIGTERM as that, not
// as the "context canceled" its work failed with. lock replaces its file
// atomically, so the file is either the one from before (nothing written)
// or a new one holding the servers that finished first.
func interrupted(ctx context.Context, cmd, lockfilePath string, before locker.Snapshot, err error) error {
	why := context.Cause(ctx)
	if cmd != "mcpsum lock" {
		return &exitError{code: exitCode(err), err: fmt.Errorf("%s interrupted (%v): %w", strings.TrimPrefix(cmd, "mcpsum "), why, err)}
	}
	if !before.Rewritten(lockfilePath) {
		return &exitError{code: exitUndecided, err: fmt.Errorf("lock interrupted (%v): nothing was written, %s is as it was", why, lockfilePath)}
	}
	return &exitError{code: exitUndecided, err: fmt.Errorf("lock interrupted (%v): %s was rewritten with the servers that finished before it (see 'git diff HEAD -- %s'): %w",
		why, lockfilePath, quoteArg(lockfilePath), err)}
}

// enterBazelWorkingDir: 'bazel run' starts a binary inside its runfiles
// tree and names the folder the user ran it from in BUILD_WORKING_DIRECTORY.
// A path the user typed (./mcp.lock, --lockfile ../x.lock) means that folder.
func enterBazelWorkingDir() error {
	dir := os.Getenv("BUILD_WORKING_DIRECTORY")
	if dir == "" {
		return nil
	}
	if err := os.Chdir(dir); err != nil {
		return fmt.Errorf("cannot enter BUILD_WORKING_DIRECTORY (the folder 'bazel run' was started from): %w; run mcpsum from an existing folder, or unset BUILD_WORKING_DIRECTORY", err)
	}
	return nil
}

// help is 'mcpsum help [COMMAND...]': the command's help on stdout.
func (a *app) help(root *ffcli.Command, args []string) error {
	c, ok := cli.Find(root, args)
	if !ok {
		return usageErr("help: no command %q (run 'mcpsum help' for the list)", strings.Join(args, " "))
	}
	fmt.Fprintln(a.stdout, usage(c))
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
				return usageErr("unknown command %q (run 'mcpsum help' for the list)", args[0])
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
		a.parseOutput(c.FlagSet)
		for _, sc := range c.Subcommands {
			sc.UsageFunc = usage
			sc.Options = envTwins()
			a.parseOutput(sc.FlagSet)
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
	a.parseOutput(fs)
	return fs
}

// parseOutput routes what the flag package prints while parsing into
// a.flagOut, and makes every flag but a list flag an error when given twice
// (a repeated --name must not silently mean the last one).
func (a *app) parseOutput(fs *flag.FlagSet) { cli.Guard(fs, &a.flagOut) }

// lockfileFlag registers the --lockfile flag shared by most subcommands.
func lockfileFlag(fs *flag.FlagSet) *string {
	return fs.String("lockfile", "mcp.lock", "path of the lockfile")
}

// stringList is a list flag: repeatable, and each value (on the command
// line or in its twin) is a comma-separated list of names.
type stringList = cli.List
