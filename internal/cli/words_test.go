package cli

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func TestClosest(t *testing.T) {
	names := []string{"lock", "import", "verify", "proxy", "show", "suggest-policy", "taint", "sign", "doctor", "version"}
	for word, want := range map[string]string{
		"Lock": "lock", "lcok": "lock", "improt": "import", "verfy": "verify", "VERIFY": "verify",
		"sugest-policy": "suggest-policy", "sugg": "suggest-policy", "docter": "doctor",
		"frobnicate": "", "x": "", "ver": "", // "ver" could be verify or version
	} {
		got, ok := Closest(word, names)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}

// Flags after operands are moved before them, with their values, up to
// "--"; a kept command (whose operands are a program's argv) and the root
// are left alone.
func TestInterleave(t *testing.T) {
	root := testTree()
	for _, c := range []struct{ in, want string }{
		{"import FILE --write", "import --write FILE"},
		{"import FILE --client claude-code --write", "import --client claude-code --write FILE"},
		{"import FILE --client=cursor", "import --client=cursor FILE"},
		{"import FILE --nope x", "import --nope FILE x"}, // unknown: the parser names it
		{"import FILE -- --write", "import FILE -- --write"},
		{"lock --name x npx -y pkg", "lock --name x npx -y pkg"},
		{"Lock FILE --name x", "Lock FILE --name x"},
	} {
		if got := strings.Join(Interleave(root, strings.Fields(c.in), "lock"), " "); got != c.want {
			t.Errorf("Interleave(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// CheckNames after a parse: a word that matches a command only when
	// case is ignored (ffcli's rule) is refused.
	for _, args := range [][]string{{"Import", "--write"}, {"LOCK"}} {
		root := testTree()
		if err := root.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := CheckNames(root); err == nil || !strings.Contains(err.Error(), "unknown command") {
			t.Errorf("CheckNames after %q: %v", args, err)
		}
	}
	root = testTree()
	if err := root.Parse([]string{"import", "--write"}); err != nil {
		t.Fatal(err)
	}
	if err := CheckNames(root); err != nil {
		t.Errorf("import --write: %v", err)
	}
}

// testTree is mcpsum's shape: import (operands: a FILE) and lock (a
// program's argv).
func testTree() *ffcli.Command {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.Bool("write", false, "")
	fs.String("client", "", "")
	lockFS := flag.NewFlagSet("lock", flag.ContinueOnError)
	lockFS.String("name", "", "")
	return &ffcli.Command{Name: "mcpsum", FlagSet: flag.NewFlagSet("mcpsum", flag.ContinueOnError), Subcommands: []*ffcli.Command{
		{Name: "import", FlagSet: fs, Exec: noop}, {Name: "lock", FlagSet: lockFS, Exec: noop}}}
}

func noop(context.Context, []string) error { return nil }
