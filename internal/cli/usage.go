package cli

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// Usage renders a command's help with long --flags, each with its
// environment twin (PREFIX_FLAG_NAME) and its default; placeholders name
// the argument of a flag (lockfile: FILE).
func Usage(prefix string, placeholders map[string]string) func(c *ffcli.Command) string {
	return func(c *ffcli.Command) string { return usage(c, prefix, placeholders) }
}

func usage(c *ffcli.Command, prefix string, placeholders map[string]string) string {
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
			if o, ok := f.Value.(*Once); ok {
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
			env := prefix + "_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
			if f.DefValue != "" && f.DefValue != "false" {
				env = "default " + f.DefValue + "; " + env
			}
			fmt.Fprintf(tw, "  %s\t%s\n  \t  [%s]\n", spec, help, env)
		})
		tw.Flush()
	}
	return strings.TrimRight(b.String(), "\n")
}
