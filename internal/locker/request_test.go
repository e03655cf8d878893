package locker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// TestLockRefusesFlagsThatDoNotApply: each form of `mcpsum lock` refuses
// the flags of another with a UsageError (exit 2) naming them, before
// anything runs or is written.
func TestLockRefusesFlagsThatDoNotApply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	for _, c := range []struct {
		r          Request
		want, hint string
	}{
		{Request{Remove: "a", Name: "b"}, "--remove takes only the entry's name", "mcpsum lock --lockfile " + path + " --remove a"},
		{Request{Accept: "all"}, "--accept all: the one kind lock can accept on its own is descriptive", ""},
		{Request{OAuth: OAuthClient{ID: "c"}}, "--oauth-client-id and --oauth-client-secret-env apply to a new remote entry", ""},
		{Request{URL: "https://mcp.example.com/mcp", OAuth: OAuthClient{SecretEnv: "S"}}, "names the secret of --oauth-client-id", ""},
		{Request{URL: "https://mcp.example.com/mcp", OAuth: OAuthClient{ID: "c", SecretEnv: "a=b"}}, "--oauth-client-secret-env a=b: want the name of an environment variable", ""},
		{Request{URL: "https://mcp.example.com/mcp", OAuth: OAuthClient{ID: "a b"}}, "--oauth-client-id 'a b': want printable ASCII", ""},
		{Request{Headers: []string{"A=B"}}, "--header applies to a remote server", "give its --url"},
		{Request{URL: "https://mcp.example.com/mcp", Command: []string{"x"}}, "give either --url", ""},
		{Request{URL: "https://mcp.example.com/mcp", Env: []string{"E"}}, "--env applies to a local server's command", "a remote server gets its credentials with --header NAME=ENVVAR"},
		{Request{URL: "https://mcp.example.com/mcp", Accept: "descriptive"}, "it takes no --url", "mcpsum lock --accept descriptive --name NAME"},
		{Request{Env: []string{"E"}}, "--env applies to a new entry", "give the server command after --"},
		{Request{Command: []string{"x"}, Accept: "descriptive"}, "it takes no command", ""},
		{Request{Command: []string{"x"}, Env: []string{"A=1"}}, "--env A=1: give the name of an environment variable", ""},
	} {
		c.r.Path = path
		var notes []string
		err := Lock(context.Background(), c.r, launch.Options{}, Options{}, Hooks{Note: func(m string) { notes = append(notes, m) }})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want a UsageError with %q", c.r, err, c.want)
			continue
		}
		if h := hint.Of(err); c.hint != "" && (len(h) != 1 || !strings.HasPrefix(h[0], c.hint)) {
			t.Errorf("%+v: hints %q, want %q", c.r, h, c.hint)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused lock wrote %s (%v)", path, err)
	}
}

// TestLockRemoveSaysSo: --remove deletes the entry and says so through
// Hooks.Note.
func TestLockRemoveSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	o := Options{Generator: "mcpsum test"}
	if _, err := Write(path, nil, map[string]*lockfile.Server{"a": entry(t, []string{"a"}, "t:d")}, o); err != nil {
		t.Fatal(err)
	}
	var notes []string
	if err := Lock(context.Background(), Request{Path: path, Remove: "a"}, launch.Options{}, o, Hooks{Note: func(m string) { notes = append(notes, m) }}); err != nil {
		t.Fatal(err)
	}
	if want := "removed a from " + path; len(notes) != 1 || notes[0] != want {
		t.Fatalf("notes %q, want %q", notes, want)
	}
}

// TestInterrupted: an interrupted lock says whether its file was rewritten,
// and only then passes on what failed (and how to see the change).
func TestInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.lock")
	before := Stat(path)
	cause := &FailedError{Cause: errors.New("boom"), Summary: "lock failed for a"}
	err := before.Interrupted(context.Canceled, cause)
	if errors.Is(err, cause) || len(hint.Of(err)) != 0 || !strings.Contains(err.Error(), "nothing was written, "+path+" is as it was") {
		t.Fatalf("untouched file: %v (hints %q)", err, hint.Of(err))
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = before.Interrupted(context.Canceled, cause)
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "was rewritten with the servers that finished before it") ||
		!strings.HasPrefix(hint.Of(err)[0], "see what changed: git diff HEAD -- ") {
		t.Fatalf("rewritten file: %v (hints %q)", err, hint.Of(err))
	}
}
