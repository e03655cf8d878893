package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The CLI scripts in testdata/script run the real command tree in-process
// (testscript re-executes this test binary as "mcpsum") and assert exact
// exit codes and output.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpsum": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exits": exits},
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Shared fixtures: the top-level testdata lockfiles.
			env.Setenv("LOCKS", mustAbs(t, "../../testdata/lockfiles"))
			return nil
		},
	})
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd + "/" + p
}

// exits N CMD ARGS... runs CMD like exec and asserts its exact exit code.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARG]...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
