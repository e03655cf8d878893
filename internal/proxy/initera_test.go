package proxy

import (
	"encoding/json"
	"testing"
)

// A legacy client's initialize gets its own version's members only (the
// schemas in /work/shared/mcp-schema), whatever era the server speaks: no
// 2026-07-28 extensions key for any legacy version; no tasks capability and
// no serverInfo description, icons or websiteUrl (2025-11-25 additions)
// for a 2025-06-18 client. The server is proxytest's fake 2026-07-28 tasks
// server, whose capabilities have extensions; the locked serverInfo is
// given the 2025-11-25 members here (the fake has none).
func TestInitializeHasOnlyTheClientErasMembers(t *testing.T) {
	e := lockServer(t, "-fake-modern-tasks")
	if ext := capKeys(t, e.Capabilities)["extensions"]; !ext {
		t.Fatalf("the fake's locked capabilities have no extensions: %s", e.Capabilities)
	}
	c := *e
	c.ServerInfo = json.RawMessage(`{"name":"fake-modern-tasks","version":"1","title":"T","description":"d","icons":[{"src":"https://example.com/i.png"}],"websiteUrl":"https://example.com"}`)
	for _, tc := range []struct {
		version  string
		caps     map[string]bool // present (true) or absent (false)
		infoKeys []string
	}{
		{"2025-11-25", map[string]bool{"extensions": false, "tasks": true, "tools": true}, []string{"name", "version", "title", "description", "icons", "websiteUrl"}},
		{"2025-06-18", map[string]bool{"extensions": false, "tasks": false, "tools": true}, []string{"name", "version", "title"}},
	} {
		s := startProxy(t, &c)
		line, m := s.request("initialize", `{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
		var init struct {
			ProtocolVersion string
			Capabilities    json.RawMessage
			ServerInfo      json.RawMessage
		}
		if err := json.Unmarshal(m.Result, &init); err != nil || init.ProtocolVersion != tc.version {
			t.Fatalf("%s: %s (%v)", tc.version, line, err)
		}
		got := capKeys(t, init.Capabilities)
		for k, want := range tc.caps {
			if got[k] != want {
				t.Errorf("%s client: capability %q present %v, want %v: %s", tc.version, k, got[k], want, init.Capabilities)
			}
		}
		info := capKeys(t, init.ServerInfo)
		if len(info) != len(tc.infoKeys) {
			t.Errorf("%s client: serverInfo %s, want exactly %v", tc.version, init.ServerInfo, tc.infoKeys)
		}
		for _, k := range tc.infoKeys {
			if !info[k] {
				t.Errorf("%s client: serverInfo lacks %q: %s", tc.version, k, init.ServerInfo)
			}
		}
		s.close()
	}
}

func capKeys(t *testing.T, obj json.RawMessage) map[string]bool {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	keys := map[string]bool{}
	for k := range m {
		keys[k] = true
	}
	return keys
}
