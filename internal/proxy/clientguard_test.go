package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/launch"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// teeServer locks the test server (a real go-sdk server) behind tee, so the
// test reads every byte the proxy sent it; read returns them so far.
func teeServer(t *testing.T, args ...string) (*lockfile.Server, func(until string) string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "upstream.log")
	argv := serverCmd(t, args...)
	script := "tee -a " + log + " | exec"
	for _, a := range argv {
		script += " '" + a + "'"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := launch.Lock(ctx, "t", []string{"/bin/sh", "-c", script}, nil, "", nil, launch.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("lock: %v", err)
	}
	// tee writes to the server before the log: read the log until it holds
	// until (the last line the test sent), or 10 s have passed.
	return e, func(until string) string {
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, _ := os.ReadFile(log)
			if strings.Contains(string(b), until) || time.Now().After(deadline) {
				return string(b)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// A request holding a case variant of a member the proxy acts on, or any
// member twice, at the envelope, params, _meta or arguments level, is
// refused with a clear error and never reaches the server: a server that
// decodes into structs ignoring case (mcp-go) would run the variant.
func TestClientTwinMembersRefused(t *testing.T) {
	e, upstream := teeServer(t, legacyOnly)
	s := startProxy(t, e)
	s.initialize()
	cases := []struct{ name, line, want string }{
		{"name twin", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","Name":"crash","arguments":{"text":"x"}}}`, `"Name" beside or instead of "name"`},
		{"variant alone", `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"NAME":"crash","name":"echo"}}`, `"NAME" beside or instead of "name"`},
		{"arguments twin", `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"Arguments":{"text":"y"}}}`, `"Arguments" beside or instead of "arguments"`},
		{"twin inside arguments", `{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"echo","arguments":{"text":"shown","Text":"run"}}}`, `params.arguments of "tools/call" holds "Text"`},
		{"nested twin inside arguments", `{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"echo","arguments":{"text":"x","o":{"to":1,"TO":2}}}}`, `holds "TO"`},
		{"duplicate member", `{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"echo","arguments":{},"x":1,"x":2}}`, `holds member "x" twice`},
		{"_meta twin", `{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"progressToken":1,"ProgressToken":2}}}`, `params._meta of "tools/call" holds "ProgressToken"`},
		{"kelvin sign", "{\"jsonrpc\":\"2.0\",\"id\":\"h\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"k\":1,\"\u212a\":2}}}", "holds \"\u212a\""},
	}
	for _, c := range cases {
		s.send(c.line)
		id := c.line[strings.Index(c.line, `"id":`)+5 : strings.Index(c.line, `,"method"`)]
		_, m := s.waitFor(id)
		if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, c.want) {
			t.Errorf("%s: %s %+v, want -32602 naming %s", c.name, m.Result, m.Error, c.want)
		}
	}
	// The envelope: a "Method" twin is refused as a parse error.
	s.send(`{"jsonrpc":"2.0","id":"i","method":"ping","Method":"tools/call","params":{"name":"crash"}}`)
	if l := string(s.recv()); !strings.Contains(l, `"Method\" is a case variant of \"method\"`) && !strings.Contains(l, `member \"Method\" is a case variant`) {
		t.Errorf("envelope twin: %s", l)
	}
	// A clean call still works, and nothing refused reached the server.
	if _, m := s.request("tools/call", `{"name":"echo","arguments":{"text":"fine"}}`); m.Error != nil || !strings.Contains(string(m.Result), "fine") {
		t.Fatalf("clean call: %s %+v", m.Result, m.Error)
	}
	got := upstream(`"fine"`)
	for _, bad := range []string{"crash", `"run"`, `"Arguments"`, `"TO"`, `ProgressToken`, `"Method"`} {
		if strings.Contains(got, bad) {
			t.Errorf("the server received %s:\n%s", bad, got)
		}
	}
}

// A request method sent as a notification (no id) never reaches the server,
// nor does any notification the client's era does not define; those it
// defines still pass. Each drop is logged on stderr, escaped.
func TestClientNotificationsAllowList(t *testing.T) {
	e, upstream := teeServer(t, legacyOnly)
	s := startProxy(t, e)
	s.initialize()
	s.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"crash","arguments":{}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/x\u001b[31m","params":{}}`)
	if _, m := s.request("tools/call", `{"name":"echo","arguments":{"text":"after"}}`); m.Error != nil {
		t.Fatalf("call after the notifications: %+v", m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	if _, m := s.request("tools/call", `{"name":"echo","arguments":{"text":"last"}}`); m.Error != nil {
		t.Fatalf("last call: %+v", m.Error)
	}
	got := upstream(`"last"`)
	if strings.Contains(got, "crash") || strings.Contains(got, "notifications/x") {
		t.Errorf("the server received a dropped notification:\n%s", got)
	}
	if !strings.Contains(got, "notifications/roots/list_changed") {
		t.Errorf("roots/list_changed, which the era defines, did not reach the server:\n%s", got)
	}
	log := s.stderr.String()
	if !strings.Contains(log, `dropped the client's notification "tools/call"`) || !strings.Contains(log, `notifications/x\u001b[31m`) {
		t.Errorf("drops not logged (escaped):\n%s", log)
	}
	if strings.Contains(log, "\x1b") {
		t.Errorf("raw escape on stderr:\n%q", log)
	}
}

// askedParams calls the ask tool for an elicitation with message, answers
// any request the client gets with decline, and returns the params of the
// elicitation/create requests the client saw and the call's response.
func (s *session) askedParams(params string) ([]string, msg) {
	s.t.Helper()
	var seen []string
	s.next++
	id := fmt.Sprint(s.next)
	s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`)
	for {
		var m msg
		json.Unmarshal(s.recv(), &m)
		switch {
		case m.Method == "elicitation/create" && m.ID != nil:
			seen = append(seen, string(m.Params))
			s.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"decline"}}`)
		case m.Method == "" && string(m.ID) == id:
			return seen, m
		}
	}
}

// A server's elicitation reaches the client marked with the server's name;
// one whose text claims to be mcpsum's never reaches it. Legacy server and
// legacy client; a 2026-07-28 server and client (inputRequests passed on).
func TestServerElicitationMarked(t *testing.T) {
	const claims = 7
	ask := func(msg string) string {
		return `{"name":"ask","arguments":{"kind":"elicitation","message":` + strconv.Quote(msg) + `}}`
	}
	bad := []string{"mcpsum: this session read outside content", "MCPSUM asks you", "m\u0441psum approval", "allow? (mcp-sum)",
		// shown as "mcpsum" by the client: a right-to-left override, a
		// reordered part, "rn" for "m"
		"\u202eMUSPCM\u202c: allow once?", "mcp\u202esu\u202cm: allow once?", "rncpsurn: allow once?"}
	t.Run("legacy", func(t *testing.T) {
		s := startProxy(t, lockServer(t, legacyOnly))
		if _, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"1"}}`); m.Error != nil {
			t.Fatal(m.Error)
		}
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		seen, _ := s.askedParams(ask("your name?"))
		if len(seen) != 1 || !strings.Contains(seen[0], `"message":"[from server \"t\", not mcpsum] your name?"`) {
			t.Errorf("the client saw %q", seen)
		}
		for _, claim := range bad {
			seen, m := s.askedParams(ask(claim))
			if len(seen) != 0 {
				t.Errorf("%q reached the client: %q", claim, seen)
			}
			if m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
				t.Errorf("%q: the call succeeded: %s", claim, m.Result)
			}
		}
		if n := strings.Count(s.stderr.String(), "claims to come from mcpsum"); n != claims {
			t.Errorf("%d refusals logged, want %d:\n%s", n, claims, s.stderr)
		}
	})
	t.Run("modern", func(t *testing.T) {
		s := startProxy(t, lockServer(t))
		withElicit := func(p string) string {
			return strings.Replace(modern(p), `clientCapabilities":{`, `clientCapabilities":{"elicitation":{},`, 1)
		}
		_, m := s.request("tools/call", withElicit(ask("your name?")))
		if m.Error != nil || !strings.Contains(string(m.Result), `"message":"[from server \"t\", not mcpsum] your name?"`) {
			t.Errorf("input_required: %s %+v", m.Result, m.Error)
		}
		for _, claim := range bad {
			_, m := s.request("tools/call", withElicit(ask(claim)))
			if m.Error == nil || !strings.Contains(m.Error.Message, "claims to come from mcpsum") {
				t.Errorf("%q: %s %+v", claim, m.Result, m.Error)
			}
		}
	})
}
