package mcphttp

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Mcp-Param-* from the locked tools' x-mcp-header annotations: nested
// properties, the value encodings of SEP-2243, and no header for what the
// rules exclude (a repeated or invalid name, a float, an object, null).
func TestParamHeaders(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"n":{"type":"integer","x-mcp-header":"N"},
			"f":{"type":"number","x-mcp-header":"F"},
			"ok":{"type":"boolean","x-mcp-header":"Ok"},
			"dup":{"type":"string","x-mcp-header":"region"},
			"bad":{"type":"string","x-mcp-header":"a b"},
			"o":{"type":"object","x-mcp-header":"Obj","properties":{"deep":{"type":"string","x-mcp-header":"Deep"}}}}}}`),
		json.RawMessage(`{"name":"plain","inputSchema":{"type":"object"}}`),
	}
	b := lockedParamHeaders(tools)
	if _, ok := b["plain"]; ok || len(b["t"]) == 0 {
		t.Fatalf("bindings %v", b)
	}
	call := func(params string) http.Header {
		m, err := readEnvelope([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + params + `}`))
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		setParamHeaders(h, b, &m)
		return h
	}
	h := call(`{"name":"t","arguments":{"region":" über ","n":4.0,"f":1.5,"ok":true,"dup":"x","bad":"y","o":{"deep":"d"}}}`)
	want := map[string]string{
		"Mcp-Param-Region": "=?base64?IMO8YmVyIA==?=",
		"Mcp-Param-N":      "4",
		"Mcp-Param-Ok":     "true",
		"Mcp-Param-Deep":   "d",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if len(h) != len(want) {
		t.Errorf("headers %v, want exactly %v", h, want)
	}
	if h := call(`{"name":"t","arguments":{"region":null,"n":9007199254740993}}`); len(h) != 0 {
		t.Errorf("null and out-of-range integer made headers %v", h)
	}
}
