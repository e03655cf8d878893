package e2e

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// mcp-go's Streamable HTTP server ends each JSON body with a newline (its
// encoder's): that is the body's end, not part of the message. Through the
// proxy the client's line is the server's bytes, as a direct session gets
// them (only the id is the client's own): no tab where the newline was.
func TestProxyRemoteBodyBytes(t *testing.T) {
	t.Parallel()
	port := listenPort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	serveHTTP(t, port, nil, bin.mcpgoHTTP, "-http", addr)
	url := "http://" + addr + "/mcp"
	dir := t.TempDir()
	mustLock(t, dir, nil, "--name", "mcpgo", "--url", url)
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"über\tbytes"}}}`

	// Directly: the body as the server sends it.
	post := func(sid, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, direct := post(sid, call)
	if !bytes.HasSuffix(direct, []byte("}\n")) || bytes.Count(direct, []byte("\n")) != 1 {
		t.Fatalf("mcp-go's body no longer ends in one newline: %q", direct)
	}
	want := strings.TrimSuffix(string(direct), "\n")

	p := startRaw(t, proxyCmd(dir, "mcpgo"))
	p.initialize()
	p.send(call)
	got := p.awaitLine("7")
	if got != want {
		t.Errorf("through the proxy the answer is\n%q\ndirectly it is\n%q", got, want)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("proxy exit %d\n%s", code, p.stderr)
	}
}
