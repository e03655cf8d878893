package proxy

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// recordingHooks is a test policy: it refuses the tool "add", answers
// prompts/get itself, asks a legacy client before every echo call, and
// replaces big results; it records every call and result it saw.
type recordingHooks struct {
	mu      sync.Mutex
	calls   []CallInfo
	results []string
}

func (h *recordingHooks) BeforeCall(c CallInfo, params []byte, s Session, decide func(Verdict)) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
	switch {
	case c.Method == "tools/call" && c.Name == "add":
		decide(Verdict{Refuse: &CallError{Code: -32001, Message: "refused by policy"}})
	case c.Method == "prompts/get":
		decide(Verdict{Answer: json.RawMessage(`{"messages":[],"description":"from the hook"}`)})
	case c.Method == "tools/call" && c.Name == "echo" && !c.ClientModern:
		err := s.AskClient("elicitation/create", json.RawMessage(`{"message":"allow echo?"}`), func(res json.RawMessage, e *CallError) {
			if e == nil && strings.Contains(string(res), `"accept"`) {
				decide(Verdict{})
				return
			}
			decide(Verdict{Refuse: &CallError{Code: -32001, Message: "the user declined"}})
		})
		if err != nil {
			decide(Verdict{Refuse: &CallError{Code: -32001, Message: err.Error()}})
		}
	default:
		decide(Verdict{})
	}
}

func (h *recordingHooks) BeforeResult(c CallInfo, r ResultInfo) *CallError {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.results = append(h.results, c.Method+" "+c.Name)
	if c.Name == "big" {
		if !r.Streamed || r.Body != nil {
			return &CallError{Code: -32099, Message: "a long result was not reported as streamed"}
		}
		return &CallError{Code: -32000, Message: "big result withheld"}
	}
	if r.Body == nil {
		return &CallError{Code: -32099, Message: "no body for an in-memory result"}
	}
	return nil
}

func TestHooksSeeEveryCallAndResult(t *testing.T) {
	h := &recordingHooks{}
	s := startProxy(t, lockServer(t, legacyOnly), func(o *Options) { o.Hooks = h })
	s.initialize()

	_, m := s.request("tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`)
	if m.Error == nil || m.Error.Code != -32001 {
		t.Errorf("refused call: %s %+v", m.Result, m.Error)
	}
	_, m = s.request("prompts/get", `{"name":"greet","arguments":{"who":"x"}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), "from the hook") {
		t.Errorf("answered call: %s %+v", m.Result, m.Error)
	}
	// The echo call waits for the client's answer to the hook's question,
	// while other traffic flows.
	s.send(`{"jsonrpc":"2.0","id":"e1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	var ask msg
	for {
		l := s.recv()
		json.Unmarshal(l, &ask)
		if ask.Method == "elicitation/create" {
			break
		}
	}
	if _, m := s.request("tools/list", ""); m.Error != nil {
		t.Fatalf("tools/list while a hook waits: %+v", m.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept"}}`)
	_, m = s.waitFor(`"e1"`)
	if m.Error != nil || !strings.Contains(string(m.Result), `"hi"`) {
		t.Errorf("confirmed echo: %s %+v", m.Result, m.Error)
	}
	_, m = s.request("tools/call", `{"name":"big","arguments":{"bytes":2000000}}`)
	if m.Error == nil || m.Error.Code != -32000 {
		t.Errorf("streamed result: got %.200s %+v, want the hook's error", m.Result, m.Error)
	}
	_, m = s.request("resources/read", `{"uri":"test://item/1"}`)
	if m.Error != nil {
		t.Errorf("resources/read: %+v", m.Error)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	want := []CallInfo{{"tools/call", "add", false}, {"prompts/get", "greet", false}, {"tools/call", "echo", false}, {"tools/call", "big", false}, {"resources/read", "test://item/1", false}}
	if len(h.calls) != len(want) {
		t.Fatalf("calls seen: %+v, want %+v", h.calls, want)
	}
	for i := range want {
		if h.calls[i] != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, h.calls[i], want[i])
		}
	}
	if got := strings.Join(h.results, ","); got != "tools/call echo,tools/call big,resources/read test://item/1" {
		t.Errorf("results seen: %s", got)
	}
}
