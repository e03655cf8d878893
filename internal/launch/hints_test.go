package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/process"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Explain's hints, from what node printed (verbatim, escaped as mcpsum
// keeps stderr) when npx had been killed mid-install: the folder it names
// and its removal when the folder exists; npx's whole cache when the error
// names none; nothing for an unrelated failure; the withheld variables by
// name, never a value.
func TestExplainHints(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("LANG", "xx_SECRET.UTF-8")
	folder := filepath.Join(home, ".npm", "_npx", "c98ccc168155bafa")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	stderr := []string{
		"node:internal/modules/esm/resolve:873",
		"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from " + folder + "/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
		"  code: 'ERR_MODULE_NOT_FOUND'",
	}
	entry := &lockfile.Server{Command: []string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"}}
	hints := func(err error) string {
		return strings.Join(hint.Of(Explain("mem", entry, Options{Lockfile: "/w/mcp.lock"}, err)), "\n") + "\n"
	}
	got := hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: stderr})
	if !strings.Contains(got, "remove it and start again: rm -rf "+folder+"\n") {
		t.Errorf("the named folder:\n%s", got)
	}
	if strings.Contains(got, "--env") {
		t.Errorf("a recognised cause got --env advice (re-locking changes the lock and fixes nothing):\n%s", got)
	}
	got = hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: []string{"panic: something else"}})
	if !strings.Contains(got, "LANG") || strings.Contains(got, "SECRET") ||
		!strings.Contains(got, "mcpsum lock --lockfile /w/mcp.lock --name mem --env ") || !strings.Contains(got, " --env LANG ") {
		t.Errorf("an unexplained failure: the withheld LANG, by name only:\n%s", got)
	}
	t.Setenv("MCPSUM_TEST_TOKEN", "SECRET-TOKEN")
	got = hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: []string{"Error: MCPSUM_TEST_TOKEN is not set"}})
	if !strings.Contains(got, "--env MCPSUM_TEST_TOKEN --") || strings.Contains(got, "--env LANG") || strings.Contains(got, "SECRET") {
		t.Errorf("a failure naming a withheld variable: that variable alone, by name:\n%s", got)
	}
	got = hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: []string{"npm error enoent ENOENT: no such file or directory, open 'package.json'"}})
	if want := "rm -rf " + filepath.Join(home, ".npm", "_npx") + "\n"; !strings.Contains(got, want) {
		t.Errorf("npx naming no folder: want %q in\n%s", want, got)
	}
	os.RemoveAll(folder)
	got = hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: stderr})
	if strings.Contains(got, "rm -rf "+folder) {
		t.Errorf("a folder that does not exist was named:\n%s", got)
	}
	got = hints(&mcpwire.TimeoutError{Method: "initialize", After: time.Second, Silent: true, StartTimeout: 60 * time.Second})
	if !strings.Contains(got, "--start-timeout-secs 300") || strings.Contains(got, "rm -rf") {
		t.Errorf("a silent server:\n%s", got)
	}
	if err := errors.New("server/discover: bad result"); Explain("mem", entry, Options{}, err) != err {
		t.Error("an error that is neither an exit nor a timeout got hints")
	}
}

// A Node server whose project has not installed its packages (a fresh clone,
// a CI job without npm ci) is told the project folder and its install
// command, whichever way node says it; a file the server itself lacks is
// named by its path; neither gets --env advice.
func TestExplainNodeAndFileHints(t *testing.T) {
	t.Setenv("LANG", "C.UTF-8")
	proj := t.TempDir()
	for _, f := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := &lockfile.Server{Command: []string{"node", "node_modules/@modelcontextprotocol/server-memory/dist/index.js"}}
	opts := Options{Lockfile: filepath.Join(proj, "mcp.lock")}
	explain := func(stderr ...string) string {
		return strings.Join(hint.Of(Explain("mem", entry, opts, &process.ExitError{Argv0: "node", State: "exit status 1", Code: 1, Stderr: stderr})), "\n")
	}
	install := "cd " + proj + " && npm ci"
	for _, stderr := range [][]string{
		{"Error: Cannot find module '" + proj + "/node_modules/@modelcontextprotocol/server-memory/dist/index.js'", "  code: 'MODULE_NOT_FOUND',"},
		{"Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from " + proj + "/dist/index.js"},
		{"Error: Cannot find module 'zod'", "Require stack:", "- " + proj + "/dist/index.js"},
	} {
		if got := explain(stderr...); !strings.HasSuffix(got, install) || strings.Contains(got, "--env") {
			t.Errorf("%q: want the install command %q alone, got\n%s", stderr[0], install, got)
		}
	}
	if err := os.Remove(filepath.Join(proj, "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	if got := explain("Error: Cannot find module '" + proj + "/node_modules/x/index.js'"); !strings.HasSuffix(got, "&& npm install") {
		t.Errorf("a project without a package lock: want npm install, got\n%s", got)
	}
	missing := filepath.Join(proj, "data")
	for _, line := range []string{
		"Error accessing directory " + missing + ": Error: ENOENT: no such file or directory, stat '" + missing + "'",
		"FileNotFoundError: [Errno 2] No such file or directory: 'data'",
		"Error: Cannot find module '" + missing + "'",
		"Warning: Cannot access directory " + missing + ", skipping",
		"sh: 0: cannot open data: No such file",
		"bash: data: No such file or directory",
	} {
		if got := explain(line); !strings.Contains(got, "looked for "+missing+", which does not exist") || strings.Contains(got, "--env") {
			t.Errorf("%q: want the path %s, got\n%s", line, missing, got)
		}
	}
	if got := explain("Error: ENOENT: no such file or directory, open '" + proj + "'"); strings.Contains(got, "looked for") {
		t.Errorf("a path that exists here was called missing:\n%s", got)
	}
	bin := &lockfile.Server{Command: []string{"node_modules/.bin/mcp-server-memory"}}
	_, lookErr := Program(bin, opts.Lockfile)
	if got := hint.Of(Explain("mem", bin, opts, lookErr)); len(got) == 0 || !strings.HasSuffix(got[0], "&& npm install") {
		t.Errorf("a program under node_modules that is not there: want the install command first, got %q", got)
	}
}
