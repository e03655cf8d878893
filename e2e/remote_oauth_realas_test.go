package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realAS starts e2e/servers/oidc/provider.mjs on Node 22: npm's
// oidc-provider (a real authorization server: PKCE, dynamic registration,
// RFC 8707 resource indicators with JWT access tokens, refresh tokens, RFC
// 9207 iss) in front of backend. It returns the MCP URL and the resource
// front's base URL (/stats, /expire) and the issuer.
func realAS(t *testing.T, backend string) (mcpURL, front, issuer string) {
	t.Helper()
	node := node22(t)
	asPort, mcpPort := listenPort(t), listenPort(t)
	script, _ := filepath.Abs(filepath.Join("servers", "oidc", "provider.mjs"))
	cmd := exec.Command(node, script)
	cmd.Env = append(cmd.Environ(), "AS_PORT="+strconv.Itoa(asPort), "MCP_PORT="+strconv.Itoa(mcpPort), "BACKEND="+backend+"/mcp")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
				io.Copy(io.Discard, out)
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("the authorization server did not start:\n%s", stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the authorization server was not ready within 60s:\n%s", stderr.String())
	}
	front = "http://127.0.0.1:" + strconv.Itoa(mcpPort)
	return front + "/mcp", front, "http://127.0.0.1:" + strconv.Itoa(asPort)
}

func stats(t *testing.T, front string) string {
	t.Helper()
	resp, err := http.Get(front + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Against a real authorization server (oidc-provider): lock registers
// mcpsum, signs in (PKCE, the resource indicator, the scope the resource
// names, offline_access for a refresh token; the redirect's iss checked)
// and pins issuer, resource and scope; verify and the proxy refresh the
// token the same way when the server stops taking it.
func TestRemoteOAuthRealAS(t *testing.T) {
	t.Parallel()
	mcpURL, front, issuer := realAS(t, gosrvHTTP(t))
	dir := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state")}
	browser := append([]string{"BROWSER=" + bin.confclient, "CONFCLIENT_BROWSER=1"}, state...)
	mustLock(t, dir, browser, "--name", "real", "--url", mcpURL)
	_, data := readRemoteLock(t, dir)
	if !strings.Contains(string(data), `"issuer": "`+issuer+`"`) || !strings.Contains(string(data), `"resource": "`+mcpURL+`"`) || !strings.Contains(string(data), `"mcp:read"`) {
		t.Fatalf("the pin:\n%s", data)
	}
	if s := stats(t, front); s != `{"logins":1,"refreshes":0}` {
		t.Fatalf("after lock: %s", s)
	}
	if _, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 {
		t.Fatalf("verify with the kept token: exit %d\n%s", code, errOut)
	}
	http.Post(front+"/expire", "text/plain", nil)
	if _, errOut, code := mcpsum(t, dir, state, "verify"); code != 0 || stats(t, front) != `{"logins":1,"refreshes":1}` {
		t.Fatalf("verify after the token was refused: exit %d, %s\n%s", code, stats(t, front), errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := proxyCmd(dir, "real")
	cmd.Env = append(cmd.Environ(), state...)
	cs := goClient(t, cmd, "modern", nil)
	http.Post(front+"/expire", "text/plain", nil)
	if got, err := toolText(ctx, cs, "add", map[string]any{"a": 20, "b": 22}); err != nil || !strings.Contains(got, "42") {
		t.Fatalf("a call through the proxy after the token was refused: %q, %v", got, err)
	}
	cs.Close()
	if s := stats(t, front); s != `{"logins":1,"refreshes":2}` {
		t.Fatalf("after the proxy's refresh: %s", s)
	}
}
