package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// callAnswering sends a request and answers the client-side requests the
// proxy makes meanwhile (server->client requests) with answer.
func (s *session) callAnswering(method, params string, answer func(method string) string) msg {
	s.t.Helper()
	s.next++
	id := fmt.Sprint(s.next)
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	for {
		l := s.recv()
		var m msg
		json.Unmarshal(l, &m)
		switch {
		case m.Method != "" && m.ID != nil:
			s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + answer(m.Method) + `}`)
		case m.Method == "" && string(m.ID) == id:
			return m
		default:
			s.notes = append(s.notes, string(l))
		}
	}
}

const rootsAnswer = `{"roots":[{"uri":"file:///work","name":"work"}]}`

func answerRoots(t *testing.T) func(string) string {
	return func(method string) string {
		if method != "roots/list" {
			t.Errorf("unexpected request %q to the client", method)
			return `{}`
		}
		return rootsAnswer
	}
}

// A legacy server's roots/list reaches a legacy client with a remapped id.
func TestServerRequestLegacyToLegacy(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly))
	s.initialize()
	m := s.callAnswering("tools/call", `{"name":"ask","arguments":{"kind":"roots"}}`, answerRoots(t))
	if m.Error != nil || !strings.Contains(string(m.Result), "file:///work") {
		t.Fatalf("ask: %s %+v", m.Result, m.Error)
	}
}

// A 2026-07-28 server's input_required becomes a request to a legacy client,
// and the call is retried upstream with its answer.
func TestInputRequiredToLegacyClient(t *testing.T) {
	s := startProxy(t, lockServer(t))
	s.initialize()
	m := s.callAnswering("tools/call", `{"name":"ask","arguments":{"kind":"roots"}}`, answerRoots(t))
	if m.Error != nil || !strings.Contains(string(m.Result), "file:///work") {
		t.Fatalf("ask: %s %+v", m.Result, m.Error)
	}
	if strings.Contains(string(m.Result), "input_required") {
		t.Errorf("a legacy client got an input_required result: %s", m.Result)
	}
}

// A legacy server's request becomes input_required for a 2026-07-28 client;
// its retry answers the server's request and gets the call's result.
func TestServerRequestToModernClient(t *testing.T) {
	for _, kind := range []string{"roots", "sampling"} {
		t.Run(kind, func(t *testing.T) {
			s := startProxy(t, lockServer(t, legacyOnly))
			args := `{"name":"ask","arguments":{"kind":"` + kind + `"}}`
			_, m := s.request("tools/call", modern(args))
			var ir struct {
				ResultType    string
				InputRequests map[string]struct{ Method string }
				RequestState  string
			}
			if json.Unmarshal(m.Result, &ir); ir.ResultType != "input_required" || len(ir.InputRequests) != 1 || ir.RequestState == "" {
				t.Fatalf("want input_required, got %s %+v", m.Result, m.Error)
			}
			var key, answer string
			for k, v := range ir.InputRequests {
				key = k
				answer = rootsAnswer
				if v.Method == "sampling/createMessage" {
					answer = `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`
				}
			}
			retry := fmt.Sprintf(`{"name":"ask","arguments":{"kind":%q},"inputResponses":{%q:%s},"requestState":%q}`, kind, key, answer, ir.RequestState)
			_, m = s.request("tools/call", modern(retry))
			if m.Error != nil || !strings.Contains(string(m.Result), "answer:") {
				t.Fatalf("retry: %s %+v", m.Result, m.Error)
			}
		})
	}
}

// Between two 2026-07-28 peers input_required passes through unchanged.
func TestInputRequiredModernToModern(t *testing.T) {
	s := startProxy(t, lockServer(t))
	_, m := s.request("tools/call", modern(`{"name":"ask","arguments":{"kind":"roots"}}`))
	if !strings.Contains(string(m.Result), `"input_required"`) || !strings.Contains(string(m.Result), `"state-1"`) {
		t.Fatalf("want the server's input_required, got %s", m.Result)
	}
	_, m = s.request("tools/call", modern(`{"name":"ask","arguments":{"kind":"roots"},"inputResponses":{"q":`+rootsAnswer+`},"requestState":"state-1"}`))
	if m.Error != nil || !strings.Contains(string(m.Result), "file:///work") {
		t.Fatalf("retry: %s %+v", m.Result, m.Error)
	}
}

// A legacy server that cancels its own request to the client: the
// cancellation reaches the client with the id the client knows.
func TestServerCancelsItsRequest(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly))
	s.initialize()
	_, m := s.request("tools/call", `{"name":"giveup","arguments":{}}`)
	if !strings.Contains(string(m.Result), "gave up: true") {
		t.Fatalf("giveup: %s %+v", m.Result, m.Error)
	}
	// go-sdk sends the cancellation off the caller's path, so it may come
	// after the result: ping until it is there.
	for i := 0; i < 50 && !strings.Contains(strings.Join(s.notes, ""), "notifications/cancelled"); i++ {
		time.Sleep(10 * time.Millisecond)
		s.request("ping", "")
	}
	var reqID string
	cancelled := false
	for _, l := range s.notes {
		var n msg
		json.Unmarshal([]byte(l), &n)
		switch n.Method {
		case "roots/list":
			reqID = string(n.ID)
		case "notifications/cancelled":
			var p struct{ RequestID json.RawMessage }
			json.Unmarshal(n.Params, &p)
			cancelled = reqID != "" && string(p.RequestID) == reqID
		}
	}
	if reqID == "" || !cancelled {
		t.Errorf("want roots/list then its cancellation with the same id, got %q", s.notes)
	}
}
