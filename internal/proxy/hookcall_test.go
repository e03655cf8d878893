package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// paramsHooks forwards every echo call with its own params, and records the
// ClientHello it saw.
type paramsHooks struct {
	version string
	caps    string
}

func (h *paramsHooks) BeforeCall(c CallInfo, params []byte, s Session, decide func(Verdict)) {
	v, caps := s.ClientHello()
	h.version, h.caps = v, string(caps)
	if c.Name == "echo" {
		decide(Verdict{Params: json.RawMessage(`{"name":"echo","arguments":{"text":"from the hook"}}`)})
		return
	}
	decide(Verdict{})
}

func (h *paramsHooks) BeforeResult(CallInfo, ResultInfo) *CallError { return nil }

// TestHookParamsReplaceForwarded: Verdict.Params is what the server gets
// (a guard removes its own approval fields this way), for a legacy and a
// 2026-07-28 server.
func TestHookParamsReplaceForwarded(t *testing.T) {
	for _, args := range [][]string{{legacyOnly}, nil} {
		h := &paramsHooks{}
		s := startProxy(t, lockServer(t, args...), func(o *Options) { o.Hooks = h })
		s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
		s.waitFor("0")
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		_, m := s.request("tools/call", `{"name":"echo","arguments":{"text":"from the client"},"requestState":"x","inputResponses":{"mcpsum/approve":{}}}`)
		if m.Error != nil || !strings.Contains(string(m.Result), "from the hook") || strings.Contains(string(m.Result), "from the client") {
			t.Errorf("%v: %s %+v", args, m.Result, m.Error)
		}
		if h.version != "2025-11-25" || h.caps != `{"elicitation":{}}` {
			t.Errorf("ClientHello: %q %q", h.version, h.caps)
		}
	}
}
