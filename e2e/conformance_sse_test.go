package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// conformanceClient is the client under test: it locks the scenario's
// server (its URL is the last argument) and calls the scenario's tool
// through mcpsum proxy, writing what the proxy answered to $E2E_OUT.
const conformanceClient = `#!/bin/sh
set -e
url="$1"
cd "$E2E_DIR"
"$E2E_MCPSUM" lock --name s --url "$url" >&2
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}' |
  "$E2E_MCPSUM" proxy --name s > "$E2E_OUT"
`

// The MCP conformance suite's sse-retry client scenario (SEP-1699): the
// server closes the call's SSE stream gracefully after a priming event
// with an id and "retry: 500", and answers on a GET stream. mcpsum (lock,
// then the proxy) reconnects with GET and Last-Event-ID after the retry
// time, and the client gets the answer. Before, the call was left
// unanswered and no GET reconnected.
func TestConformanceSSERetry(t *testing.T) {
	t.Parallel()
	node := node22(t)
	cli, err := filepath.Abs(filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		requirePeers(t, "@modelcontextprotocol/conformance is not installed; run `npm ci` in e2e/")
	}
	tmp := t.TempDir()
	client, results, out := filepath.Join(tmp, "client.sh"), filepath.Join(tmp, "results"), filepath.Join(tmp, "out")
	os.WriteFile(client, []byte(conformanceClient), 0o700)
	cmd := exec.Command(node, cli, "client", "--command", "sh "+client, "--scenario", "sse-retry", "--output-dir", results)
	cmd.Env = append(os.Environ(), "E2E_DIR="+t.TempDir(), "E2E_MCPSUM="+bin.mcpsum, "E2E_OUT="+out)
	report, err := cmd.CombinedOutput()
	answer, _ := os.ReadFile(out)
	if !strings.Contains(string(answer), "Reconnection test completed successfully") {
		t.Fatalf("the client did not get the answer sent on the resumed stream (%v): %q\n%s", err, answer, report)
	}
	files, _ := filepath.Glob(filepath.Join(results, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("conformance wrote %v (%v)\n%s", files, err, report)
	}
	data, _ := os.ReadFile(files[0])
	var checks []struct {
		ID, Status, ErrorMessage string
		Details                  map[string]any
	}
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range checks {
		switch c.ID {
		case "client-sse-graceful-reconnect", "client-sse-last-event-id":
			seen[c.ID] = true
			if c.Status != "SUCCESS" {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.ErrorMessage)
			}
		case "client-sse-retry-timing":
			seen[c.ID] = true
			// Too early is mcpsum's fault; late (the suite allows 200 ms,
			// and fails past twice the retry time) can be a loaded machine's.
			if c.Details["tooEarly"] == true || (c.Status == "FAILURE" && c.Details["veryLate"] != true) {
				t.Errorf("%s: %s %s", c.ID, c.Status, c.ErrorMessage)
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("checks %v, want the three of sse-retry\n%s", seen, report)
	}
}
