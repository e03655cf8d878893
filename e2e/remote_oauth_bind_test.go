package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/oauth/oauthtest"
)

// A server whose protected-resource metadata is only at the root
// well-known URL, and whose 401 does not name it (go-sdk's auth example,
// context7's HTTP mode): lock signs in, and the proxy refreshes the token
// exactly as verify does, at its start and when the server refuses the
// token in the middle of a session (before, every proxy session failed
// once the first access token was spent).
func TestProxyRefreshesWithRootMetadata(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, gosrvHTTP(t))
	as.Knobs.PRMAtRoot = true
	dir := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	mustLock(t, dir, append([]string{"BROWSER=" + browserScript(t, dir)}, state...), "--name", "root", "--url", as.Resource)
	if _, data := readRemoteLock(t, dir); !strings.Contains(string(data), `"resource": "`+as.HTTP.URL+`"`) {
		t.Fatalf("the pin does not name the root resource:\n%s", data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := proxyCmd(dir, "root")
	cmd.Env = append(cmd.Environ(), state...)
	cs := goClient(t, cmd, "legacy", nil)
	as.ExpireAccess()
	if got, err := toolText(ctx, cs, "add", map[string]any{"a": 2, "b": 2}); err != nil || !strings.Contains(got, "4") || as.Refreshs != 1 {
		t.Fatalf("a call after the server refused the token: %q, %v, %d refreshes", got, err, as.Refreshs)
	}
	cs.Close()
	if _, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, errOut)
	}
}

// Step-up: a call that needs a wider scope than the lock's sign-in is
// answered with the re-lock that signs in with it (the session goes on);
// that command asks for the scope, and the entry's pin shows it.
func TestProxyStepUp(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, gosrvHTTP(t))
	as.Knobs.ChallengeScope, as.Knobs.CallScope = "mcp", "files:write"
	dir := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	browser := append([]string{"BROWSER=" + browserScript(t, dir)}, state...)
	mustLock(t, dir, browser, "--name", "up", "--url", as.Resource)
	if _, data := readRemoteLock(t, dir); !strings.Contains(string(data), `"scopes": [`) || strings.Contains(string(data), "files:write") {
		t.Fatalf("the pin's scopes:\n%s", data)
	}
	if got := as.AuthRequests[0].Get("scope"); got != "mcp offline_access" {
		t.Fatalf("lock asked for %q, want the challenge's scope (and offline_access)", got)
	}
	cmd := proxyCmd(dir, "up")
	cmd.Env = append(cmd.Environ(), state...)
	p := startRaw(t, cmd)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`)
	got := p.await("5")
	next := "mcpsum lock --lockfile " + filepath.Join(dir, "mcp.lock") + " --name up"
	if !strings.Contains(string(got["error"]), "files:write") || !strings.Contains(string(got["error"]), `\nhint: review it, then sign in with it from a terminal (the entry's oauth.scopes then show it): `+next+`"`) {
		t.Fatalf("the call needing files:write: %s", got["error"])
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	if got := p.await("6"); got["result"] == nil {
		t.Fatalf("the session did not go on: %s", got["error"])
	}
	p.wait()
	if _, errOut, code := mcpsum(t, dir, browser, strings.Fields(next)[1:]...); code != 0 {
		t.Fatalf("the suggested %q: exit %d\n%s", next, code, errOut)
	}
	if got := as.AuthRequests[len(as.AuthRequests)-1].Get("scope"); got != "files:write mcp offline_access" {
		t.Fatalf("the re-lock asked for %q", got)
	}
	show, _, _ := mcpsum(t, dir, state, "show", "--name", "up")
	if !strings.Contains(show, "scopes files:write mcp") {
		t.Fatalf("show after the step-up:\n%s", show)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd = proxyCmd(dir, "up")
	cmd.Env = append(cmd.Environ(), state...)
	cs := goClient(t, cmd, "legacy", nil)
	if got, err := toolText(ctx, cs, "add", map[string]any{"a": 1, "b": 2}); err != nil || !strings.Contains(got, "3") {
		t.Fatalf("the call after the step-up: %q, %v", got, err)
	}
	cs.Close()
}

// A kept token is bound to the resource its pin names: an entry whose url
// the resource does not cover (a diff that changes only the url) is
// refused when the lock is read, by verify and the proxy, naming both,
// and the other origin never hears from mcpsum. A server that now names
// another resource, or asks for a scope the lock does not grant, is
// definitional drift.
func TestOAuthTokenBoundToResource(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, gosrvHTTP(t))
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(other.Close)
	dir := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	mustLock(t, dir, append([]string{"BROWSER=" + browserScript(t, dir)}, state...), "--name", "saas", "--url", as.Resource)
	lock := filepath.Join(dir, "mcp.lock")
	good, _ := os.ReadFile(lock)
	evil := strings.Replace(string(good), `"url": "`+as.Resource+`"`, `"url": "`+other.URL+`/mcp"`, 1)
	if evil == string(good) {
		t.Fatal("the url is not in the lock")
	}
	os.WriteFile(lock, []byte(evil), 0o644)
	for _, args := range [][]string{{"verify"}, {"proxy", "--name", "saas"}, {"show"}} {
		out, errOut, code := mcpsum(t, dir, state, args...)
		if code == 0 || !strings.Contains(out+errOut, "does not cover the entry's url") || !strings.Contains(out+errOut, as.Resource) || !strings.Contains(out+errOut, other.URL+"/mcp") {
			t.Errorf("%v on a url its resource does not cover: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("the other origin got %d requests", n)
	}
	os.WriteFile(lock, good, 0o644)

	// A scope beyond the lock's, then another resource: drift.
	as.ExpireAccess()
	as.Knobs.ChallengeScope = "admin"
	out, _, code := mcpsum(t, dir, state, "verify", "--format", "sarif")
	if got := sarifFindings(t, validSARIF(t, []byte(out)), good); code != 1 || len(got) != 1 || got[0].rule != "mcpsum/oauth-scope-drift" {
		t.Fatalf("verify when the server asks for another scope: exit %d, %+v", code, got)
	}
	as.Knobs.ChallengeScope = ""
	as.Knobs.ResourceOther = as.HTTP.URL
	text, _, code := mcpsum(t, dir, state, "verify")
	if code != 1 || !strings.Contains(text, "oauthResource changed") {
		t.Fatalf("verify when the server names another resource: exit %d\n%s", code, text)
	}
}
