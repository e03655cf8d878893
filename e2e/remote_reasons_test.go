package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/oauth/oauthtest"
)

// A remote entry the proxy cannot reach for a reason of this machine (a
// header's variable unset, no valid sign-in) fails the client's handshake
// with that reason and the command that fixes it, in both client eras, as
// a local server that cannot start does (before, the proxy exited before
// initialize and a client showed only "Connection closed"); each fix, done
// as said, makes the proxy serve.
func TestProxyRemoteReasonReachesClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	front := authFront(t, gosrvHTTP(t), "s3cret-token", false)
	mustLock(t, dir, []string{"MY_TOKEN=Bearer s3cret-token"}, "--name", "saas", "--url", front.URL+"/mcp", "--header", "Authorization=MY_TOKEN")
	for _, era := range []string{"legacy", "modern"} {
		cmd := proxyCmd(dir, "saas")
		cmd.Env = append(os.Environ(), "MY_TOKEN=")
		_, err := dial(cmd, era, nil)
		if err == nil || !strings.Contains(err.Error(), "$MY_TOKEN, which is not set") || !strings.Contains(err.Error(), "hint: export MY_TOKEN") {
			t.Fatalf("%s client, MY_TOKEN unset: the handshake got %v", era, err)
		}
	}
	cmd := proxyCmd(dir, "saas")
	cmd.Env = append(os.Environ(), "MY_TOKEN=Bearer s3cret-token")
	if _, err := toolText(t.Context(), goClient(t, cmd, "legacy", nil), "add", map[string]any{"a": 1, "b": 2}); err != nil {
		t.Fatalf("with MY_TOKEN exported, as the error said: %v", err)
	}

	// A sign-in this machine does not have (a new machine, or one whose
	// kept token was removed): the handshake names 'mcpsum lock', which
	// signs in again.
	as := oauthtest.New(t, gosrvHTTP(t))
	odir := t.TempDir()
	state := "XDG_STATE_HOME=" + filepath.Join(odir, "state")
	env := []string{"BROWSER=" + browserScript(t, odir), state}
	mustLock(t, odir, env, "--name", "oauthed", "--url", as.Resource)
	if err := os.RemoveAll(filepath.Join(odir, "state", "mcpsum", "oauth")); err != nil {
		t.Fatal(err)
	}
	cmd = proxyCmd(odir, "oauthed")
	cmd.Env = append(os.Environ(), state)
	_, err := dial(cmd, "legacy", nil)
	lock := filepath.Join(odir, "mcp.lock")
	want := "hint: sign in from a terminal: mcpsum lock --lockfile " + lock + " --name oauthed"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("no sign-in: the handshake got %v, want it to say %q", err, want)
	}
	args := strings.Fields(strings.TrimPrefix(want, "hint: sign in from a terminal: mcpsum "))
	if _, stderr, code := mcpsum(t, odir, env, args...); code != 0 {
		t.Fatalf("%v, as the error said: exit %d\n%s", args, code, stderr)
	}
	cmd = proxyCmd(odir, "oauthed")
	cmd.Env = append(os.Environ(), state)
	if _, err := toolText(t.Context(), goClient(t, cmd, "modern", nil), "add", map[string]any{"a": 1, "b": 2}); err != nil {
		t.Fatalf("after signing in again: %v", err)
	}
}

// Playwright's MCP server refuses a Host it does not allow (by default
// the one it is bound to: localhost) with a 403
// and no auth challenge, and says why in the body: lock shows that body
// (escaped, shortened), not "it needs credentials"; at the URL it names,
// the lock succeeds.
func TestRemoteForbiddenShowsBody(t *testing.T) {
	t.Parallel()
	cli, err := filepath.Abs(filepath.Join("node_modules", "@playwright", "mcp", "cli.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		requirePeers(t, "@playwright/mcp is not installed; run `npm ci` in e2e/")
	}
	port := listenPort(t)
	// Bound to 127.0.0.1 (so the test can wait for it there) and, as by
	// default, allowing only the Host localhost:PORT.
	hostPort := "localhost:" + strconv.Itoa(port)
	serveHTTP(t, port, nil, "node", cli, "--port", strconv.Itoa(port), "--host", "127.0.0.1", "--allowed-hosts", hostPort)
	dir := t.TempDir()
	_, stderr, code := mcpsum(t, dir, nil, "lock", "--name", "pw", "--url", "http://127.0.0.1:"+strconv.Itoa(port)+"/mcp")
	if code != 3 || !strings.Contains(stderr, "answered HTTP 403") || !strings.Contains(stderr, "Access is only allowed at "+hostPort) || strings.Contains(stderr, "needs credentials") {
		t.Fatalf("lock of Playwright's server at 127.0.0.1: exit %d\n%s", code, stderr)
	}
	mustLock(t, dir, nil, "--name", "pw", "--url", "http://"+hostPort+"/mcp")
}
