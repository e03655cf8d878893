package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/testbin"
)

// Real clients over HTTP through `mcpsum serve`, in front of mcp-go's
// everything example locked as a stdio server: go-sdk's client (both eras),
// the TypeScript SDK v1 and v2 (v2 also in 2026-07-28) and the Inspector
// CLI, run as serve's start-up hint says. What is tested is serve and the
// clients, so the server is a built Go binary (~0.05 CPU-s a start, against
// ~0.7 for the npm server-everything, which serve starts once per legacy
// session); the npm server-everything through serve is TestServeConformance's.
func TestServeClients(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "every", "--", bin.mcpgoEvery)
	_, env := taintState(t)
	p := startServe(t, dir, "", env)
	url := p.at("every")

	for _, era := range []string{"legacy", "modern"} {
		cs := httpClient(t, url, withToken{token: p.token}, era, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		got, err := toolText(ctx, cs, "echo", map[string]any{"message": "go " + era})
		cancel()
		if err != nil || !strings.Contains(got, "go "+era) {
			t.Fatalf("go-sdk client (%s): %q %v\n%s", era, got, err, p.stderr)
		}
	}
	for _, c := range []struct{ sdk, era string }{{"v1", "legacy"}, {"v2", "legacy"}, {"v2", "modern"}} {
		out := tsClient(t, c.sdk, c.era, url, p.token, "echo", `{"message":"ts `+c.sdk+`"}`)
		var r struct {
			Tools   []string
			Result  struct{ Content []struct{ Text string } }
			Version string
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Result.Content) == 0 || !strings.Contains(r.Result.Content[0].Text, "ts "+c.sdk) || len(r.Tools) < 5 || (r.Version == "2026-07-28") != (c.era == "modern") {
			t.Fatalf("TypeScript SDK %s (%s): %s\n%s", c.sdk, c.era, out, p.stderr)
		}
	}
	// The hint serve prints, run as printed (the local Inspector for npx).
	m := regexp.MustCompile(`(?m)^  npx @modelcontextprotocol/inspector (--cli .*)$`).FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("serve printed no Inspector hint:\n%s", p.stderr)
	}
	cmd := exec.Command("sh", "-c", "node "+inspector(t)+" "+m[1])
	var stderr testbin.SyncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), `"name": "echo"`) && !strings.Contains(string(out), `"name":"echo"`) {
		t.Fatalf("the Inspector CLI as the hint says: %v\n%s\n%s", err, out, stderr.String())
	}
}
