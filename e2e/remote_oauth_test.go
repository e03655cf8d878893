package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/oauth/oauthtest"
)

// browserScript writes a $BROWSER that plays the user: it opens the URL it
// is given (its one argument) and follows the redirect back to mcpsum.
func browserScript(t *testing.T, dir string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		requirePeers(t, "node is needed to play the browser")
	}
	p := filepath.Join(dir, "browser")
	script := "#!/bin/sh\nexec " + node + ` -e 'fetch(process.argv[1]).then(r => r.text()).catch(e => { console.error(e); process.exit(1) })' "$1"` + "\n"
	if err := os.WriteFile(p, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

// OAuth end to end: a real go-sdk server behind a resource front that
// wants tokens from a local authorization server written for the tests.
// lock signs in (authorization code + PKCE, the URL handed to $BROWSER as
// one argument) and pins issuer and resource; verify uses the kept token,
// then refreshes it when it expired; an issuer change is definitional
// drift (exit 1, SARIF rule oauth-issuer-drift); re-lock accepts it.
func TestRemoteOAuth(t *testing.T) {
	t.Parallel()
	as := oauthtest.New(t, gosrvHTTP(t))
	dir := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	env := append([]string{"BROWSER=" + browserScript(t, dir)}, state...)
	errOut := mustLock(t, dir, env, "--name", "saas", "--url", as.Resource)
	if !strings.Contains(errOut, "saas asks you to sign in") || as.Logins != 1 {
		t.Fatalf("lock did not sign in (%d logins):\n%s", as.Logins, errOut)
	}
	_, data := readRemoteLock(t, dir)
	if !strings.Contains(string(data), `"issuer": "`+as.Issuer()+`"`) || !strings.Contains(string(data), `"resource": "`+as.Resource+`"`) {
		t.Fatalf("the lock does not pin issuer and resource:\n%s", data)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "state", "mcpsum", "oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("kept token files %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if tok, _ := os.ReadFile(files[0]); strings.Contains(string(data), "access_token") || !strings.Contains(string(tok), "access_token") {
		t.Fatal("the token must live in the state folder, never in the lock")
	}

	if out, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 {
		t.Fatalf("verify with the kept token: exit %d\n%s%s", code, out, errOut)
	}
	as.ExpireAccess()
	if out, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 || as.Refreshs != 1 || as.Logins != 1 {
		t.Fatalf("verify after expiry: exit %d, %d refreshes, %d logins\n%s%s", code, as.Refreshs, as.Logins, out, errOut)
	}

	as.MoveIssuer()
	lock, _ := os.ReadFile(filepath.Join(dir, "mcp.lock"))
	out, _, code := mcpsum(t, dir, state, "verify", "--format", "sarif")
	got := sarifFindings(t, validSARIF(t, []byte(out)), lock)
	if code != 1 || len(got) != 1 || got[0].rule != "mcpsum/oauth-issuer-drift" {
		t.Fatalf("verify after the issuer moved: exit %d, results %+v", code, got)
	}
	text, _, _ := mcpsum(t, dir, state, "verify")
	if !strings.Contains(text, "oauthIssuer") {
		t.Fatalf("the text report does not name the issuer change:\n%s", text)
	}
	mustLock(t, dir, env, "--name", "saas")
	if _, data := readRemoteLock(t, dir); !strings.Contains(string(data), as.Issuer()) || as.Logins != 2 {
		t.Fatalf("re-lock did not move the entry to the new issuer (%d logins)", as.Logins)
	}
	if _, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 {
		t.Fatalf("verify after re-lock: exit %d\n%s", code, errOut)
	}
}
