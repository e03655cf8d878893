package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/peterbourgon/ff/v3"
	"github.com/peterbourgon/ff/v3/ffcli"
)

// Wire readies a command tree: every command renders its help with h,
// reads each flag's environment twin (h.Prefix_FLAG_NAME) when the flag is
// not on the command line (a twin's value is one value, commas and all;
// only a List splits it, in its own Set), gets an empty flag set when it
// has none, and Guards its flags with out (what the flag package prints
// while parsing).
func Wire(root *ffcli.Command, h Help, out io.Writer) {
	var walk func(c *ffcli.Command, path string)
	walk = func(c *ffcli.Command, path string) {
		c.UsageFunc = func(c *ffcli.Command) string { return h.Render(c, path) }
		c.Options = []ff.Option{ff.WithEnvVarPrefix(h.Prefix)}
		if c.FlagSet == nil {
			c.FlagSet = flag.NewFlagSet(c.Name, flag.ContinueOnError)
		}
		Guard(c.FlagSet, out)
		for _, sc := range c.Subcommands {
			walk(sc, path+" "+sc.Name)
		}
	}
	walk(root, root.Name)
}

// Version is stamped (set at release time with -ldflags "-X
// main.version=v1.2.3"), or the module version in the build info when the
// binary came from 'go install module@version', or "devel".
func Version(stamped string) string {
	if stamped != "" && stamped != "devel" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// EnterBazelWorkingDir: 'bazel run' starts a binary inside its runfiles
// tree and names the folder the user ran it from in
// BUILD_WORKING_DIRECTORY. A path the user typed (./mcp.lock, --lockfile
// ../x.lock) means that folder.
func EnterBazelWorkingDir() error {
	dir := os.Getenv("BUILD_WORKING_DIRECTORY")
	if dir == "" {
		return nil
	}
	if err := os.Chdir(dir); err != nil {
		return fmt.Errorf("cannot enter BUILD_WORKING_DIRECTORY (the folder 'bazel run' was started from): %w", err)
	}
	return nil
}
