package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

// A legacy server's roots/list sent once initialized, when no call of a
// 2026-07-28 client runs, is held for the client's first call: a call that
// declares roots gets input_required asking roots/list (nothing forwarded),
// its retry's answer reaches the server before the retried call does; a
// client declaring no roots gets the server an empty list.
func TestHeldStartupRoots(t *testing.T) {
	e := lockServer(t, legacyOnly, "-roots-at-start")
	const withRoots = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}`
	s := startProxy(t, e)
	_, m := s.request("tools/call", `{"name":"roots-seen","arguments":{},`+withRoots+`}`)
	var ir struct {
		ResultType    string `json:"resultType"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
		RequestState string `json:"requestState"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &ir) != nil || ir.ResultType != "input_required" ||
		ir.InputRequests[heldRootsKey].Method != "roots/list" || ir.RequestState == "" {
		t.Fatalf("want input_required asking roots/list, got %s %+v", m.Result, m.Error)
	}
	state, _ := json.Marshal(ir.RequestState)
	_, m = s.request("tools/call", `{"name":"roots-seen","arguments":{},`+withRoots+
		`,"inputResponses":{"`+heldRootsKey+`":{"roots":[{"uri":"file:///client-root","name":"c"}]}},"requestState":`+string(state)+`}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `roots: [{\"name\":\"c\",\"uri\":\"file:///client-root\"}]`) ||
		!strings.Contains(string(m.Result), `"resultType":"complete"`) {
		t.Fatalf("the retried call: %s %+v", m.Result, m.Error)
	}
	// Asked once: the next call goes straight through.
	_, m = s.request("tools/call", `{"name":"roots-seen","arguments":{},`+withRoots+`}`)
	if m.Error != nil || !strings.Contains(string(m.Result), "file:///client-root") {
		t.Errorf("a later call: %s %+v", m.Result, m.Error)
	}

	bare := startProxy(t, e)
	_, m = bare.request("tools/call", `{"name":"roots-seen","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), `roots: []`) {
		t.Errorf("a client declaring no roots: %s %+v", m.Result, m.Error)
	}
}
