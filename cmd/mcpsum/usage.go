package main

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// placeholders name the argument of a flag in help output.
var placeholders = map[string]string{
	"lockfile": "FILE", "name": "NAME", "env": "VAR", "timeout-secs": "SECS",
	"start-timeout-secs": "SECS", "approval-timeout-secs": "SECS",
	"sarif-file": "FILE", "format": "FORMAT", "client": "NAME", "project": "DIR",
	"key": "FILE", "bundle": "FILE", "signature": "FILE", "trusted-root": "FILE",
	"certificate-identity": "ID", "certificate-oidc-issuer": "URL",
	"certificate-identity-regexp": "RE", "certificate-oidc-issuer-regexp": "RE",
	"fulcio-url": "URL", "rekor-url": "URL", "tsa-url": "URL", "attest-helper": "PATH",
}

// usage renders a command's help the way mcpsum's flags are spelled: long
// --flags, each with its MCPSUM_ environment twin.
func usage(c *ffcli.Command) string {
	var b strings.Builder
	if c.ShortHelp != "" {
		fmt.Fprintf(&b, "%s\n\n", c.ShortHelp)
	}
	fmt.Fprintf(&b, "Usage:\n")
	for _, l := range strings.Split(c.ShortUsage, "\n") {
		fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(strings.TrimSpace(l), "or   "))
	}
	if c.LongHelp != "" {
		fmt.Fprintf(&b, "\n%s\n", c.LongHelp)
	}
	if len(c.Subcommands) > 0 {
		fmt.Fprintf(&b, "\nCommands:\n")
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		for _, sc := range c.Subcommands {
			fmt.Fprintf(tw, "  %s\t%s\n", sc.Name, sc.ShortHelp)
		}
		tw.Flush()
	}
	n := 0
	c.FlagSet.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(&b, "\nFlags (each also read from its environment twin, one value each; a flag given wins):\n")
		tw := tabwriter.NewWriter(&b, 0, 2, 2, ' ', 0)
		c.FlagSet.VisitAll(func(f *flag.Flag) {
			if o, ok := f.Value.(*onceValue); ok {
				unwrapped := *f
				unwrapped.Value = o.Value
				f = &unwrapped
			}
			arg, help := flag.UnquoteUsage(f)
			spec := "--" + f.Name
			if p, ok := placeholders[f.Name]; ok {
				arg = p
			}
			if arg != "" {
				spec += " " + strings.ToUpper(arg)
			}
			env := "MCPSUM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
			if f.DefValue != "" && f.DefValue != "false" {
				env = "default " + f.DefValue + "; " + env
			}
			fmt.Fprintf(tw, "  %s\t%s\n  \t  [%s]\n", spec, help, env)
		})
		tw.Flush()
	}
	return strings.TrimRight(b.String(), "\n")
}
