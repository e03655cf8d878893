package cli

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/hint"
)

// CheckNames is run after root.Parse and before Run: each word that
// chooses a subcommand must be its exact name. ffcli matches names ignoring
// case, so without it "mcpsum Lock" would re-lock; a word that names no
// subcommand gets "did you mean". rootWords are words root's own Exec
// takes in place of a subcommand ("help").
func CheckNames(root *ffcli.Command, rootWords ...string) error {
	c, path := root, root.Name
	for len(c.Subcommands) > 0 && c.FlagSet != nil && c.FlagSet.Parsed() && c.FlagSet.NArg() > 0 {
		w := c.FlagSet.Arg(0)
		i := slices.IndexFunc(c.Subcommands, func(sc *ffcli.Command) bool { return sc.Name == w })
		if i < 0 {
			if c == root && slices.Contains(rootWords, w) {
				return nil
			}
			return UnknownCommand(c, path, w)
		}
		c, path = c.Subcommands[i], path+" "+w
	}
	return nil
}

// UnknownCommand is the error for word, which names no subcommand of c
// (typed as path), with the nearest name as a hint.
func UnknownCommand(c *ffcli.Command, path, word string) error {
	var names []string
	for _, sc := range c.Subcommands {
		names = append(names, sc.Name)
	}
	err := fmt.Errorf("unknown command %q", word)
	if _, sub, ok := strings.Cut(path, " "); ok {
		err = fmt.Errorf("unknown %s command %q", sub, word) // "unknown fleet command"
	}
	list := fmt.Sprintf("'%s -h' lists the commands", path)
	if near, ok := Closest(word, names); ok {
		if strings.EqualFold(near, word) {
			list = "commands are lower case"
		}
		return hint.Wrap(err, fmt.Sprintf("did you mean '%s %s'? (%s)", path, near, list))
	}
	return hint.Wrap(err, list)
}

// FlagError turns an error of the flag package while parsing the command
// args select into one that names the command and, for a flag it does not
// have, the nearest flag it has.
func FlagError(root *ffcli.Command, args []string, err error) error {
	c, _ := Find(root, commandWords(root, args))
	path := Path(root, args)
	cmd := strings.TrimPrefix(path, root.Name+" ")
	msg := strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
	help := fmt.Sprintf("'%s -h' lists its flags", path)
	if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		bad = strings.TrimLeft(bad, "-")
		var names []string
		c.FlagSet.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		err := fmt.Errorf("%s has no flag --%s", cmd, bad)
		if near, ok := Closest(bad, names); ok {
			return hint.Wrap(err, fmt.Sprintf("did you mean --%s? (%s)", near, help))
		}
		return hint.Wrap(err, help)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		msg = fmt.Sprintf("--%s needs a value", strings.TrimLeft(name, "-"))
	} else if m := invalidValue.get().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s %s: %s", m[2], m[1], valueWant(c.FlagSet.Lookup(m[2]), m[3]))
	} else if m := invalidBool.get().FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s: %s", m[1], m[2])
	}
	if m := givenTwice.get().FindString(msg); m != "" {
		msg, help = m, "give it once"
	}
	return hint.Wrap(fmt.Errorf("%s: %s", cmd, msg), help)
}

// valueWant says what a flag takes, for the flag package's bare "parse
// error" of a value that is not of its type ("abc" for a number).
func valueWant(f *flag.Flag, why string) string {
	if f == nil || why != "parse error" {
		return why
	}
	v := f.Value
	if o, ok := v.(*Once); ok {
		v = o.Value
	}
	g, ok := v.(flag.Getter)
	if !ok {
		return why
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "want a whole number"
	case float64:
		return "want a number"
	case time.Duration:
		return "want a duration (30s, 5m)"
	}
	return why
}

// What the flag package says of a bad value, and Once of a repeated flag.
var (
	invalidValue = &lazyRegexp{expr: `^invalid (?:boolean )?value (".*") for (?:flag )?-(\S+): (.*)$`}
	invalidBool  = &lazyRegexp{expr: `^invalid boolean flag (\S+): (.*)$`}
	givenTwice   = &lazyRegexp{expr: `--\S+ given twice \(first .*\)$`}
)

// commandWords are the leading words of args that name subcommands.
func commandWords(root *ffcli.Command, args []string) []string {
	n := len(strings.Fields(Path(root, args))) - 1
	return args[:n]
}

// Interleave lets flags follow the operands of the command args select
// ("import FILE --write" means "import --write FILE"): it moves every flag
// of that command (with its value) before the first operand, up to a "--",
// after which everything is an operand. The flag package stops at the
// first operand, so without it "--write" would be read as a second FILE.
// Commands named in keep (as typed after root: "lock") are left as they
// are: their operands are a program's own argv, whose flags are not theirs.
func Interleave(root *ffcli.Command, args []string, keep ...string) []string {
	words := commandWords(root, args)
	c, _ := Find(root, words)
	if len(words) == 0 || len(c.Subcommands) > 0 || slices.Contains(keep, strings.Join(words, " ")) || c.FlagSet == nil {
		return args // root and commands of commands take no operands of their own
	}
	head := slices.Clone(words)
	var operands []string
	rest := args[len(words):]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			operands = append(operands, rest[i:]...)
			break
		}
		name, hasValue := flagName(a)
		f := c.FlagSet.Lookup(name)
		if name == "" || f == nil {
			if name == "" {
				operands = append(operands, a)
			} else {
				head = append(head, a) // unknown: the parser names it
			}
			continue
		}
		head = append(head, a)
		if !hasValue && !isBool(f) && i+1 < len(rest) {
			i++
			head = append(head, rest[i])
		}
	}
	return append(head, operands...)
}

// flagName is the name of the flag a is ("" when a is not a flag), and
// whether a holds its value (--name=N).
func flagName(a string) (string, bool) {
	if len(a) < 2 || a[0] != '-' || a == "--" {
		return "", false
	}
	n := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	n, _, hasValue := strings.Cut(n, "=")
	return n, hasValue
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Closest is the name of names nearest to word, when it is near enough to
// be what was meant: the same but for case, one edit (or a swap of two
// neighbouring letters) for short words, up to a third of the letters for
// longer ones, or a prefix of one name alone.
func Closest(word string, names []string) (string, bool) {
	w := strings.ToLower(word)
	best, bestD := "", -1
	var prefixed []string
	for _, n := range names {
		d := distance(w, strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
		if len(w) >= 3 && strings.HasPrefix(strings.ToLower(n), w) {
			prefixed = append(prefixed, n)
		}
	}
	switch {
	case bestD >= 0 && bestD <= max(1, len([]rune(w))/3):
		return best, true
	case len(prefixed) == 1:
		return prefixed[0], true
	}
	return "", false
}

// distance is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and swaps of neighbours, one each.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
