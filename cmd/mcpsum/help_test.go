package main

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/mcpsum/mcpsum/internal/cli"
)

// Every command's help fits in 100 columns and ends with examples of that
// command, each naming only flags the command has (and, at the top, only
// commands there are).
func TestHelp(t *testing.T) {
	root := (&app{}).rootCommand()
	var walk func(c *ffcli.Command, path string)
	n := 0
	walk = func(c *ffcli.Command, path string) {
		n++
		text := c.UsageFunc(c)
		for i, l := range strings.Split(text, "\n") {
			if w := utf8.RuneCountInString(l); w > cli.Width {
				t.Errorf("%s -h, line %d is %d columns wide:\n%s", path, i+1, w, l)
			}
		}
		_, ex, ok := strings.Cut(text, "\nExamples:\n")
		if !ok {
			t.Errorf("%s -h has no examples", path)
		}
		for _, l := range strings.Split(ex, "\n") {
			l, _, _ = strings.Cut(strings.TrimSpace(l), "#")
			l, _, _ = strings.Cut(l, " -- ")
			words := strings.Fields(l)
			if len(words) == 0 {
				continue
			}
			cmd := cli.Path(root, words[1:])
			c, _ := cli.Find(root, strings.Fields(cmd)[1:])
			if cmd == "mcpsum" && len(words) > 1 && words[1] != "help" || !strings.HasPrefix(cmd+" ", path+" ") {
				t.Errorf("%s -h: the example %q is not of this command", path, l)
				continue
			}
			for _, f := range exampleFlag.FindAllStringSubmatch(l, -1) {
				if c.FlagSet.Lookup(f[1]) == nil {
					t.Errorf("%s -h: the example %q uses --%s, which the command does not have", path, l, f[1])
				}
			}
		}
		for _, sc := range c.Subcommands {
			walk(sc, path+" "+sc.Name)
		}
	}
	walk(root, "mcpsum")
	if n < 13 {
		t.Errorf("walked %d commands", n)
	}
}

var exampleFlag = regexp.MustCompile(`(?:^| )--([a-z][a-z-]*)`)
