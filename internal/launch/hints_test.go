package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		var se *StartError
		if !errors.As(Explain("mem", entry, Options{Lockfile: "/w/mcp.lock"}, err), &se) {
			return ""
		}
		return strings.Join(se.Hints, "\n")
	}
	got := hints(&process.ExitError{Argv0: "npx", State: "exit status 1", Code: 1, Stderr: stderr})
	if !strings.Contains(got, "remove it and start again: rm -rf "+folder+"\n") {
		t.Errorf("the named folder:\n%s", got)
	}
	if !strings.Contains(got, "LANG") || strings.Contains(got, "SECRET") ||
		!strings.Contains(got, "mcpsum lock --lockfile /w/mcp.lock --name mem --env ") || !strings.Contains(got, " --env LANG ") {
		t.Errorf("the withheld LANG, by name only:\n%s", got)
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
