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

// A legacy client's first call, made before the server asked its start-up
// roots/list, reaches the server only after the server applied the
// answer, even when applying takes longer than the settle pause: the
// server says so on its stderr (as server-filesystem does), and the held
// call waits for that line (up to startupSettleMax).
func TestStartupCallWaitsForRootsApplied(t *testing.T) {
	e := lockServer(t, legacyOnly, "-roots-at-start", "-roots-apply-delay=400ms")
	s := startProxy(t, e)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"roots-seen","arguments":{}}}`)
	for {
		var m msg
		if err := json.Unmarshal(s.recv(), &m); err != nil {
			t.Fatal(err)
		}
		if m.Method == "roots/list" {
			s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"roots":[{"uri":"file:///client-root","name":"c"}]}}`)
			continue
		}
		if string(m.ID) != `"first"` {
			continue
		}
		if m.Error != nil || !strings.Contains(string(m.Result), "file:///client-root") {
			t.Fatalf("the first call ran before the server applied the client's roots: %s %+v (stderr: %s)", m.Result, m.Error, s.stderr)
		}
		return
	}
}
