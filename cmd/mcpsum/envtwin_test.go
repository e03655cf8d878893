package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// twinCase is one flag of one command, found by walking the command tree
// (so a flag added later is covered without touching this test).
type twinCase struct {
	path []string // command names below mcpsum
	name string
}

func flagCases() []twinCase {
	var out []twinCase
	var walk func(c *ffcli.Command, path []string)
	walk = func(c *ffcli.Command, path []string) {
		if c.FlagSet != nil {
			c.FlagSet.VisitAll(func(f *flag.Flag) {
				out = append(out, twinCase{slices.Clone(path), f.Name})
			})
		}
		for _, sc := range c.Subcommands {
			walk(sc, append(slices.Clone(path), sc.Name))
		}
	}
	walk((&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand(), nil)
	return out
}

// parsed parses args (after the command path) with a fresh command tree and
// returns the flag as parsed.
func (tc twinCase) parsed(t *testing.T, args ...string) *flag.Flag {
	t.Helper()
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()
	if err := root.Parse(append(slices.Clone(tc.path), args...)); err != nil {
		t.Fatalf("mcpsum %s %s: %v", strings.Join(tc.path, " "), strings.Join(args, " "), err)
	}
	c := root
	for _, name := range tc.path {
		i := slices.IndexFunc(c.Subcommands, func(sc *ffcli.Command) bool { return sc.Name == name })
		c = c.Subcommands[i]
	}
	return c.FlagSet.Lookup(tc.name)
}

// samples returns two values the flag accepts, both unlike its default (a
// string value holds a comma, which a twin keeps).
func (tc twinCase) samples(t *testing.T) (twin, given string) {
	t.Helper()
	f := tc.parsed(t)
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		if f.DefValue == "true" {
			return "false", "true"
		}
		return "true", "false"
	}
	for _, pair := range [][2]string{{"dir/a,b.lock", "other,c.lock"}, {"7", "9"}, {"7s", "9s"}} {
		probe := tc.parsed(t)
		if probe.Value.Set(pair[0]) == nil && probe.Value.Set(pair[1]) == nil {
			return pair[0], pair[1]
		}
	}
	t.Fatalf("no sample value for --%s of %v", tc.name, tc.path)
	return "", ""
}

func twinName(flagName string) string {
	return "MCPSUM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Every flag of every command: the default without flag or twin, the
// twin's whole value (commas included) without the flag, and the flag over
// the twin. A twin split on commas read MCPSUM_LOCKFILE=dir/a,b.lock as
// b.lock.
func TestEveryFlagTwinPrecedence(t *testing.T) {
	cases := flagCases()
	if len(cases) < 20 {
		t.Fatalf("found only %d flags in the command tree", len(cases))
	}
	for _, tc := range cases {
		t.Run(strings.Join(append(tc.path, tc.name), "/"), func(t *testing.T) {
			env := twinName(tc.name)
			t.Setenv(env, "")
			if f := tc.parsed(t); f.Value.String() != f.DefValue {
				t.Errorf("default: --%s is %q, want %q", tc.name, f.Value.String(), f.DefValue)
			}
			twin, given := tc.samples(t)
			if _, list := tc.parsed(t).Value.(*stringList); list {
				twin, given = "ALPHA,BETA", "GAMMA"
			}
			t.Setenv(env, twin)
			if got := tc.parsed(t).Value.String(); got != twin {
				t.Errorf("%s=%s: --%s is %q, want the twin's value", env, twin, tc.name, got)
			}
			if got := tc.parsed(t, "--"+tc.name+"="+given).Value.String(); got != given {
				t.Errorf("%s=%s and --%s=%s: got %q, want the flag's value", env, twin, tc.name, given, got)
			}
		})
	}
}

// The list flag splits its twin (and its value) on commas, into names.
func TestListFlagTwinSplits(t *testing.T) {
	tc := twinCase{path: []string{"lock"}, name: "env"}
	t.Setenv("MCPSUM_ENV", "GITHUB_TOKEN,HOME_DIR")
	if got := *tc.parsed(t).Value.(*stringList); !slices.Equal(got, []string{"GITHUB_TOKEN", "HOME_DIR"}) {
		t.Errorf("MCPSUM_ENV=GITHUB_TOKEN,HOME_DIR: --env is %q", got)
	}
	if got := *tc.parsed(t, "--env", "A", "--env", "B,C").Value.(*stringList); !slices.Equal(got, []string{"A", "B", "C"}) {
		t.Errorf("--env A --env B,C (twin set): --env is %q", got)
	}
	t.Setenv("MCPSUM_ENV", "A,,B")
	root := (&app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}).rootCommand()
	if err := root.Parse([]string{"lock"}); err == nil || !strings.Contains(err.Error(), "MCPSUM_ENV") {
		t.Errorf("MCPSUM_ENV=A,,B: %v, want an error naming the twin", err)
	}
}
