package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// A legacy server's request for a capability the legacy client did not
// declare is answered by the proxy at once, saying why; the client never
// sees it. A declared capability still reaches the client.
func TestServerRequestUndeclaredCapability(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly))
	if _, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"test","version":"1"}}`); m.Error != nil {
		t.Fatal(m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	start := time.Now()
	m := s.callAnswering("tools/call", `{"name":"ask","arguments":{"kind":"sampling"}}`, func(method string) string {
		t.Errorf("the client got %s although it did not declare sampling", method)
		return `{}`
	})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	// go-sdk's server turns the proxy's -32601 into its own method-not-found
	// error for the call (the npm server keeps the proxy's words: e2e
	// TestProxyEverythingDeclaredCapabilities).
	if m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
		t.Errorf("ask sampling without the capability succeeded: %s", m.Result)
	}
	m = s.callAnswering("tools/call", `{"name":"ask","arguments":{"kind":"roots"}}`, answerRoots(t))
	if m.Error != nil || !strings.Contains(string(m.Result), "file:///work") {
		t.Errorf("ask roots: %s %+v", m.Result, m.Error)
	}
}

// Which declared capabilities let which server→client requests through.
func TestClientDeclared(t *testing.T) {
	cases := []struct {
		caps, request string
		need          string
		ok            bool
	}{
		{`{"roots":{}}`, `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`, "roots", true},
		{`{}`, `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`, "roots", false},
		{``, `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`, "roots", false},
		{`{"roots":null}`, `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`, "roots", false},
		{`{"sampling":{}}`, `{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}`, "sampling", true},
		{`{"roots":{}}`, `{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{}}`, "sampling", false},
		{`{"elicitation":{}}`, `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"m"}}`, "elicitation.form", true},
		{`{"elicitation":{}}`, `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"url","url":"https://x"}}`, "elicitation.url", false},
		{`{"elicitation":{"url":{}}}`, `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"url","url":"https://x"}}`, "elicitation.url", true},
		{`{"elicitation":{"url":{}}}`, `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"m"}}`, "elicitation.form", false},
		{`{"elicitation":{"form":{},"url":{}}}`, `{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"form"}}`, "elicitation.form", true},
		{`{}`, `{"jsonrpc":"2.0","id":0,"method":"tasks/get","params":{}}`, "", true},
	}
	for _, c := range cases {
		env, _, err := jsonline.ScanEnvelope([]byte(c.request))
		if err != nil {
			t.Fatal(err)
		}
		method, _ := jsonline.StringAt([]byte(c.request), env.Method)
		p := &Proxy{client: clientSession{caps: []byte(c.caps)}}
		need, ok := p.clientDeclared(method, []byte(c.request), env)
		if need != c.need || ok != c.ok {
			t.Errorf("caps %s, %s: got %q %v, want %q %v", c.caps, c.request, need, ok, c.need, c.ok)
		}
	}
}
