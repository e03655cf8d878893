package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// Width is the widest line help prints: usage lines and flag texts are
// wrapped to it (LongHelp is written within it; a test holds that).
const Width = 100

// Help is how a command tree's help is rendered: long --flags, each with
// its environment twin (Prefix_FLAG_NAME) and its default; Placeholders
// name the argument of a flag (lockfile: FILE); Examples are command
// lines, by the path of the command they show ("mcpsum taint reset"),
// printed last. No line is wider than Width. Both tables are functions,
// called when help is shown: a package-level map literal is code every
// process runs before main (docs/performance.md, the proxy's peak RSS).
type Help struct {
	Prefix       string
	Placeholders func() map[string]string
	Examples     func() map[string][]string
}

// Render is the help of c, whose path is as typed ("mcpsum lock").
func (h Help) Render(c *ffcli.Command, path string) string {
	var placeholders map[string]string
	if h.Placeholders != nil {
		placeholders = h.Placeholders()
	}
	s := usage(c, h.Prefix, placeholders)
	var examples []string
	if h.Examples != nil {
		examples = h.Examples()[path]
	}
	if ex := examples; len(ex) > 0 {
		s += "\n\nExamples:\n  " + strings.Join(ex, "\n  ")
	}
	return s
}

func usage(c *ffcli.Command, prefix string, placeholders map[string]string) string {
	var b strings.Builder
	if c.ShortHelp != "" {
		fmt.Fprintf(&b, "%s\n\n", c.ShortHelp)
	}
	fmt.Fprintf(&b, "Usage:\n")
	for _, l := range strings.Split(c.ShortUsage, "\n") {
		wrap(&b, strings.TrimPrefix(strings.TrimSpace(l), "or   "), "  ", "      ")
	}
	if c.LongHelp != "" {
		fmt.Fprintf(&b, "\n%s\n", c.LongHelp)
	}
	if len(c.Subcommands) > 0 {
		fmt.Fprintf(&b, "\nCommands:\n")
		w := 0
		for _, sc := range c.Subcommands {
			w = max(w, len(sc.Name))
		}
		for _, sc := range c.Subcommands {
			wrap(&b, fmt.Sprintf("%-*s  %s", w, sc.Name, sc.ShortHelp), "  ", strings.Repeat(" ", w+4))
		}
	}
	type row struct{ spec, help, env string }
	var rows []row
	col := 0
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
		rows = append(rows, row{spec, help, "[" + env + "]"})
		col = max(col, len(spec))
	})
	if len(rows) > 0 {
		fmt.Fprintf(&b, "\nFlags (each also read from its environment twin, one value each; a flag given wins):\n")
		indent := strings.Repeat(" ", col+4)
		for _, r := range rows {
			wrap(&b, fmt.Sprintf("%-*s  %s", col, r.spec, r.help), "  ", indent)
			wrap(&b, r.env, indent+"  ", indent+"  ")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// wrap writes text as lines of at most Width columns, the first after
// first, the others after rest, broken at spaces (a word wider than a line
// stands alone).
func wrap(b *strings.Builder, text, first, rest string) {
	line := first
	fresh := true // nothing after the indent yet
	for _, word := range strings.Split(text, " ") {
		switch {
		case fresh:
			line += word
			fresh = word == "" // keep the spaces that align columns
			if fresh {
				line += " "
			}
		case len([]rune(line))+1+len([]rune(word)) > Width:
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line, fresh = rest+word, false
		default:
			line += " " + word
		}
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// FlagHelp is the help of a command with a plain flag set (mcpsum-log's
// subcommands): its usage line and what it does, its flags as --name ARG
// (placeholders name a flag's ARG: dir: D) with their defaults, and
// examples; no line is wider than Width.
func FlagHelp(fs *flag.FlagSet, usageLine, short string, placeholders map[string]string, examples []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nUsage:\n", short)
	wrap(&b, usageLine, "  ", "      ")
	type row struct{ spec, help string }
	var rows []row
	col := 0
	fs.VisitAll(func(f *flag.Flag) {
		arg, help := flag.UnquoteUsage(f)
		spec := "--" + f.Name
		if p, ok := placeholders[f.Name]; ok {
			arg = p
		}
		if arg != "" {
			spec += " " + strings.ToUpper(arg)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
			help += " (default " + f.DefValue + ")"
		}
		rows = append(rows, row{spec, help})
		col = max(col, len(spec))
	})
	if len(rows) > 0 {
		fmt.Fprintf(&b, "\nFlags:\n")
		for _, r := range rows {
			wrap(&b, fmt.Sprintf("%-*s  %s", col, r.spec, r.help), "  ", strings.Repeat(" ", col+4))
		}
	}
	if len(examples) > 0 {
		fmt.Fprintf(&b, "\nExamples:\n  %s\n", strings.Join(examples, "\n  "))
	}
	return b.String()
}
