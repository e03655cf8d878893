package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// Once is a flag that may be set once: a repeated --name must not silently
// mean the last one.
type Once struct {
	flag.Value
	name string
	set  bool
}

func (o *Once) Set(v string) error {
	if o.set {
		return fmt.Errorf("--%s given twice (first %s)", o.name, o.Value.String())
	}
	o.set = true
	return o.Value.Set(v)
}

// IsBoolFlag keeps a wrapped bool flag usable as a bare --flag.
func (o *Once) IsBoolFlag() bool {
	b, ok := o.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Guard routes what the flag package prints while parsing fs into out, and
// makes every flag of fs but a List a Once.
func Guard(fs *flag.FlagSet, out io.Writer) {
	fs.SetOutput(out)
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Value.(type) {
		case *List, *Once:
		default:
			f.Value = &Once{Value: f.Value, name: f.Name}
		}
	})
}

// Name is a flag whose value names one thing (a server entry, a client, a
// kind of change): an empty or blank value is refused, on the command line
// and in the environment twin alike. Leaving such a flag out often means
// "every one" (lock without --name re-locks every entry), so "" must not
// silently mean that too.
type Name struct{ s *string }

// NameVar defines the name flag --flag on fs.
func NameVar(fs *flag.FlagSet, flagName, usage string) *string {
	n := &Name{s: new(string)}
	fs.Var(n, flagName, usage)
	return n.s
}

func (n *Name) String() string {
	if n == nil || n.s == nil {
		return ""
	}
	return *n.s
}

func (n *Name) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errors.New("an empty or blank name names nothing; give the name itself")
	}
	*n.s = v
	return nil
}

// List is a list flag: repeatable, and each value (on the command line or
// in its environment twin) is a comma-separated list. Its items are names,
// which hold no commas.
type List []string

func (s *List) String() string { return strings.Join(*s, ",") }
func (s *List) Set(v string) error {
	for item := range strings.SplitSeq(v, ",") {
		if strings.TrimSpace(item) == "" {
			return fmt.Errorf("empty or blank item in the list %q (separate names with single commas)", v)
		}
		*s = append(*s, item)
	}
	return nil
}

// Find returns the subcommand of root that the words name (root itself for
// none), and false when a word names no subcommand.
func Find(root *ffcli.Command, words []string) (*ffcli.Command, bool) {
	c := root
	for _, w := range words {
		i := slices.IndexFunc(c.Subcommands, func(sc *ffcli.Command) bool { return sc.Name == w })
		if i < 0 {
			return c, false
		}
		c = c.Subcommands[i]
	}
	return c, true
}

// Path names the (sub)command args select, as typed: "mcpsum taint reset".
func Path(root *ffcli.Command, args []string) string {
	path, c := root.Name, root
	for _, arg := range args {
		i := slices.IndexFunc(c.Subcommands, func(sc *ffcli.Command) bool { return sc.Name == arg })
		if i < 0 {
			break
		}
		c = c.Subcommands[i]
		path += " " + c.Name
	}
	return path
}
