package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// fleet emit --mode url points every client at exactly what mcpsum serve
// serves: each server's URL in each client's policy is the one serve
// printed for it, a real client (go-sdk) reaches the server through it
// with serve's token, and Gemini CLI's policy (the one that defines the
// servers, not only admits them) carries the token as serve asks for it:
// an Authorization header whose ${MCPSUM_SERVE_TOKEN} Gemini expands. The
// servers are mcp-go's everything example (a Go peer with an echo tool:
// what is tested is where the URLs lead, not the server; each start of the
// npm server-everything cost ~0.7 CPU-s, six of them here).
func TestFleetURLModeReachesServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, n := range []string{"every", "second"} {
		mustLock(t, dir, nil, "--name", n, "--", bin.mcpgoEvery)
	}
	_, env := taintState(t)
	p := startServe(t, dir, "", env)
	printed := map[string]string{} // name → the URL serve printed
	for _, m := range regexp.MustCompile(`(?m)^mcpsum serve: (\S+) at (\S+)$`).FindAllStringSubmatch(p.stderr.String(), -1) {
		printed[m[1]] = m[2]
	}
	if len(printed) != 2 {
		t.Fatalf("serve printed %v:\n%s", printed, p.stderr)
	}

	lock := filepath.Join(dir, "mcp.lock")
	emit := func(client string) string {
		so, se, code := mcpsum(t, dir, env, "fleet", "emit", "--client", client, "--mode", "url", "--serve-url", p.url, "--lockfile", lock)
		if code != 0 {
			t.Fatalf("fleet emit --client %s --mode url: exit %d\n%s%s", client, code, so, se)
		}
		return so
	}
	type matcher struct{ ServerURL string }
	urls := map[string]map[string]string{} // client → name → URL
	var allow struct{ AllowedMcpServers []matcher }
	must(t, json.Unmarshal([]byte(emit("claude-code")), &allow))
	urls["claude-code"] = map[string]string{}
	for _, m := range allow.AllowedMcpServers {
		name := strings.TrimSuffix(strings.TrimPrefix(m.ServerURL, p.url+"/servers/"), "/mcp")
		urls["claude-code"][name] = m.ServerURL
	}
	var codex struct {
		MCPServers map[string]struct{ Identity struct{ URL string } } `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(emit("codex"), &codex); err != nil {
		t.Fatal(err)
	}
	urls["codex"] = map[string]string{}
	for n, s := range codex.MCPServers {
		urls["codex"][n] = s.Identity.URL
	}
	var desktop struct{ ManagedMcpServers string }
	must(t, json.Unmarshal([]byte(emit("claude-desktop")), &desktop))
	var servers []struct{ Name, URL string }
	must(t, json.Unmarshal([]byte(desktop.ManagedMcpServers), &servers))
	urls["claude-desktop"] = map[string]string{}
	for _, s := range servers {
		urls["claude-desktop"][s.Name] = s.URL
	}
	var gemini struct {
		MCP        struct{ Allowed []string }
		MCPServers map[string]struct {
			HTTPURL string `json:"httpUrl"`
			Headers map[string]string
		}
	}
	must(t, json.Unmarshal([]byte(emit("gemini")), &gemini))
	urls["gemini"] = map[string]string{}
	for n, s := range gemini.MCPServers {
		urls["gemini"][n] = s.HTTPURL
		if got := s.Headers["Authorization"]; got != "Bearer ${MCPSUM_SERVE_TOKEN}" {
			t.Errorf("gemini's %s carries Authorization %q, not serve's token from $MCPSUM_SERVE_TOKEN", n, got)
		}
	}
	for client, byName := range urls {
		if len(byName) != len(printed) {
			t.Errorf("%s's policy names %v; serve serves %v", client, byName, printed)
		}
		for n, u := range byName {
			if u != printed[n] {
				t.Errorf("%s's policy has %s at %q; serve serves it at %q", client, n, u, printed[n])
			}
		}
	}

	// A real client through the emitted URLs: Gemini's header as Gemini
	// expands it, the others with the token a user configures.
	for n, s := range gemini.MCPServers {
		token := strings.TrimPrefix(strings.ReplaceAll(s.Headers["Authorization"], "${MCPSUM_SERVE_TOKEN}", p.token), "Bearer ")
		cs := httpClient(t, s.HTTPURL, withToken{token: token}, "legacy", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		got, err := toolText(ctx, cs, "echo", map[string]any{"message": "via fleet " + n})
		cancel()
		if err != nil || !strings.Contains(got, "via fleet "+n) {
			t.Fatalf("go-sdk through gemini's %s at %s: %q %v\n%s", n, s.HTTPURL, got, err, p.stderr)
		}
	}
	cs := httpClient(t, urls["claude-desktop"]["second"], withToken{token: p.token}, "modern", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if got, err := toolText(ctx, cs, "echo", map[string]any{"message": "modern via fleet"}); err != nil || !strings.Contains(got, "modern via fleet") {
		t.Fatalf("go-sdk (2026-07-28) through the emitted URL: %q %v\n%s", got, err, p.stderr)
	}
	// Without serve's token the emitted URL is refused.
	req, _ := http.NewRequest("POST", urls["codex"]["every"], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the emitted URL without the token: HTTP %d, want 401", resp.StatusCode)
	}
}
