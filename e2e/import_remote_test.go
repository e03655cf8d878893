package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Import of remote entries (issue 24), end to end against the official
// server-everything over Streamable HTTP behind a front that wants a bearer
// token, as a SaaS endpoint does. A Cursor config names the token as
// ${env:…}: import locks the URL and the variable (never the value),
// rewrites the entry to run mcpsum proxy with the variable handed over in
// its env, verify of the imported entry passes, a second import changes
// nothing, and undo restores the file byte for byte. An entry with the
// token written literally is refused, naming the server, the header and the
// next step, and that step works.
func TestImportRemoteEntries(t *testing.T) {
	t.Parallel()
	script := npmServer(t, "server-everything")
	port := listenPort(t)
	serveHTTP(t, port, []string{"PORT=" + strconv.Itoa(port)}, "node", script, "streamableHttp")
	front := authFront(t, fmt.Sprintf("http://127.0.0.1:%d", port), "tok-s3cret", false)
	url := front.URL + "/mcp"

	dir := t.TempDir()
	home, env := fakeHome(t)
	cfgPath := filepath.Join(home, ".cursor", "mcp.json") // the user's own config
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o700); err != nil {
		t.Fatal(err)
	}
	original := `{
  "mcpServers": {
    "saas": {
      "url": ` + jsonStr(url) + `,
      "headers": {"Authorization": "${env:SAAS_AUTH}"}
    },
    "pasted": {"url": ` + jsonStr(url) + `, "headers": {"Authorization": "Bearer tok-s3cret"}}
  }
}
`
	if err := os.WriteFile(cfgPath, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(env, "SAAS_AUTH=Bearer tok-s3cret")
	lock := filepath.Join(dir, "mcp.lock")
	imp := func(args ...string) (string, string, int) {
		return mcpsum(t, dir, env, append([]string{"import", "--client", "cursor", "--lockfile", lock}, append(args, cfgPath)...)...)
	}

	out, errOut, code := imp()
	for _, want := range []string{
		"lock   saas: remote " + url + " (headers: Authorization from $SAAS_AUTH)",
		`skip   pasted: ` + front.URL + `: header "Authorization" has a literal value in the config, which mcpsum never copies into mcp.lock or the rewritten config (it may be a secret): put the header's whole value in an environment variable (export AUTHORIZATION_VALUE=…), write ${env:AUTHORIZATION_VALUE} as the header's value in the config, and import again`,
		`+ "command": ` + jsonStr(bin.mcpsum) + `, "args": ["proxy", "--lockfile", ` + jsonStr(lock) + `, "--name", "saas"], "env": {"SAAS_AUTH": "${env:SAAS_AUTH}"}`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("import: exit %d, output lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out+errOut, "tok-s3cret") {
		t.Fatalf("import printed the token:\n%s%s", out, errOut)
	}

	out, errOut, code = imp("--write")
	if code != 0 {
		t.Fatalf("import --write: exit %d\n%s%s", code, out, errOut)
	}
	l, data := readRemoteLock(t, dir)
	e := l.Servers["saas"]
	if l.LockfileVersion != 3 || e.URL != url || e.Headers["Authorization"] != "SAAS_AUTH" || len(e.Tools) < 10 || strings.Contains(string(data), "tok-s3cret") {
		t.Fatalf("lock after import: version %d, entry %+v\n%s", l.LockfileVersion, e, data)
	}
	rewritten, _ := os.ReadFile(cfgPath)
	if strings.Contains(string(rewritten), `"url": `+jsonStr(url)+`,
      "headers"`) || !strings.Contains(string(rewritten), `"env": {"SAAS_AUTH": "${env:SAAS_AUTH}"}`) {
		t.Fatalf("the rewritten config:\n%s", rewritten)
	}
	if _, errOut, code := mcpsum(t, dir, env, "verify", "--lockfile", lock, "--name", "saas"); code != 0 {
		t.Fatalf("verify of the imported entry: exit %d\n%s", code, errOut)
	}

	// Running import again changes nothing: the entry runs mcpsum proxy now.
	out, _, _ = imp("--write")
	if !strings.Contains(out, "skip   saas: already runs mcpsum proxy") {
		t.Errorf("a second import:\n%s", out)
	}
	if again, _ := os.ReadFile(cfgPath); string(again) != string(rewritten) {
		t.Errorf("a second import changed the config")
	}

	// The refusal's next step: the value in a variable, the reference in
	// the config, import again.
	cur, _ := os.ReadFile(cfgPath)
	fixed := strings.Replace(string(cur), `"Bearer tok-s3cret"`, `"${env:AUTHORIZATION_VALUE}"`, 1)
	if err := os.WriteFile(cfgPath, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	env = append(env, "AUTHORIZATION_VALUE=Bearer tok-s3cret")
	if out, errOut, code := imp("--write"); code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("import after following the next step: exit %d\n%s%s", code, out, errOut)
	}
	if l, _ := readRemoteLock(t, dir); l.Servers["pasted"].Headers["Authorization"] != "AUTHORIZATION_VALUE" {
		t.Fatalf("pasted was not locked: %+v", l.Servers["pasted"])
	}

	// Undo twice: back to the file as the user last wrote it; then the
	// first write's remote entry is put back as it was, keeping the user's
	// edit of the other entry since.
	userEdit := strings.Replace(original, `"Bearer tok-s3cret"`, `"${env:AUTHORIZATION_VALUE}"`, 1)
	for _, want := range []string{fixed, userEdit} {
		if out, errOut, code := mcpsum(t, dir, env, "import", "--undo", cfgPath); code != 0 {
			t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
		}
		if b, _ := os.ReadFile(cfgPath); string(b) != want {
			t.Fatalf("after undo:\n%s\nwant:\n%s", b, want)
		}
	}
}
