package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A client's notifications/cancelled reaches the server, which stops the
// call, and the client never gets an answer to the request it cancelled.
// The oracle is what the user cares about: the server saw a cancellation
// (its count is at least 1), not that it saw exactly one (each retry of a
// cancellation that came too early, before the server ran the call, can
// add one: that made the test fail under -race on a busy machine).
func TestCancellationReachesServer(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			wrap := modern
			args := []string{}
			if era == "legacy" {
				wrap, args = func(p string) string { return p }, []string{legacyOnly}
			}
			s := startProxy(t, lockServer(t, args...))
			if era == "legacy" {
				s.initialize()
			}
			s.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":` + wrap(`{"name":"slow","arguments":{}}`) + `}`)
			// Wait until the server runs it (the gate may still be closed).
			seen := 0
			var last string
			for i := 0; i < 100 && seen == 0; i++ {
				s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"test"}}`)
				_, m := s.request("tools/call", wrap(`{"name":"cancelled","arguments":{}}`))
				last = string(m.Result)
				if seen = cancelledCount(t, m.Result); seen == 0 {
					s.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":` + wrap(`{"name":"slow","arguments":{}}`) + `}`)
					time.Sleep(20 * time.Millisecond)
				}
			}
			if seen == 0 {
				t.Fatalf("the server never saw the cancellation: %s", last)
			}
			for _, l := range s.notes {
				if strings.Contains(l, `"slow-1"`) {
					t.Errorf("a cancelled request was answered: %s", l)
				}
			}
		})
	}
}

// cancelledCount reads the fake's "cancelled" tool result: how many slow
// calls it saw cancelled.
func cancelledCount(t *testing.T, result []byte) int {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("the cancelled tool's result: %s (%v)", result, err)
	}
	n, err := strconv.Atoi(r.Content[0].Text)
	if err != nil {
		t.Fatalf("the cancelled tool's result: %s", result)
	}
	return n
}

func TestProgressFlood(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly))
	s.initialize()
	const n = 3000
	_, m := s.request("tools/call", `{"name":"flood","arguments":{"count":3000},"_meta":{"progressToken":"tok"}}`)
	if m.Error != nil || !strings.Contains(string(m.Result), "sent 3000") {
		t.Fatalf("flood: %s %+v", m.Result, m.Error)
	}
	got := 0
	for _, l := range s.notes {
		if strings.Contains(l, `"notifications/progress"`) && strings.Contains(l, `"progressToken":"tok"`) {
			got++
		}
	}
	if got != n {
		t.Errorf("%d progress notifications reached the client, want %d", got, n)
	}
}

func TestBigResultByteIdentical(t *testing.T) {
	e := lockServer(t, legacyOnly)
	s := startProxy(t, e)
	s.initialize()
	// Longer than every buffer on its way: the read window over the
	// server's output, the collect buffer kept between long lines, the
	// bytes held while a check runs (4.25 MiB; it was 10 MiB, which proved
	// nothing more at about twice the CPU of the server's encoding).
	size := max(window, keepAcc, maxHeldDownBytes) + window
	params := fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, size)
	line, m := s.request("tools/call", params)
	if m.Error != nil {
		t.Fatalf("big: %+v", m.Error)
	}
	want := direct(t, e, "tools/call", params)
	if got := resultOf(t, line); !bytes.Equal(got, want) || len(got) < size {
		t.Errorf("a %d-byte result differs from the direct one (%d vs %d bytes)", size, len(got), len(want))
	}
}

func TestServerCrashMidCall(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly))
	s.initialize()
	_, m := s.request("tools/call", `{"name":"crash","arguments":{}}`)
	if m.Error == nil || !strings.Contains(m.Error.Message, "exited") {
		t.Fatalf("crash mid-call: want an error saying the server exited, got %s %+v", m.Result, m.Error)
	}
	err := s.close()
	if err == nil || !strings.Contains(err.Error(), "crashing as asked") || strings.Contains(err.Error(), "\x1b") {
		t.Errorf("Run's error must carry the escaped stderr tail: %v", err)
	}
}

// A server that never answers its handshake fails the client's own
// initialize (its health check) once the handshake timed out within the
// health window, as a client connecting directly would see it fail.
func TestServerNeverAnswers(t *testing.T) {
	e := lockServer(t, legacyOnly)
	s := startProxy(t, withCommand(t, e, "-never-answer"), func(o *Options) { o.Pin.Timeout = 300 * time.Millisecond })
	_, m := s.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	if m.Error == nil || !strings.Contains(m.Error.Message, "no answer within") {
		t.Fatalf("want the handshake's timeout as initialize's error, got %s %+v", m.Result, m.Error)
	}
	// The client's next messages, sent as after any initialize, get the
	// same failure: never "send initialize first" (it did), and its
	// notification is not logged as one its era does not send.
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if _, m := s.request("tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`); m.Error == nil || !strings.Contains(m.Error.Message, "no answer within") {
		t.Errorf("a call after the failed initialize: want the failure again, got %s %+v", m.Result, m.Error)
	}
	if err := s.close(); err == nil {
		t.Error("Run must fail when the server never answered")
	}
	if log := s.stderr.String(); strings.Contains(log, "dropped the client's notification") {
		t.Errorf("the client's notifications/initialized after the failure was logged as one its era does not send:\n%s", log)
	}
}

// A client that closes its input with a call in flight that the server
// never finishes gets that call answered with an error naming
// --timeout-secs once it has passed; the session ends normally.
func TestClientLeavesWithCallInFlight(t *testing.T) {
	s := startProxy(t, lockServer(t, legacyOnly), func(o *Options) { o.Pin.Timeout = 2 * time.Second })
	s.initialize()
	s.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	s.request("tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`) // the gate is open
	s.in.Close()
	s.in = nil
	if _, m := s.waitFor("9"); m.Error == nil || !strings.Contains(m.Error.Message, "did not answer within --timeout-secs (2s)") {
		t.Errorf("the call in flight: %+v", m.Error)
	}
	go io.Copy(io.Discard, readerOf(s.out))
	if err := <-s.done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestUnknownEraAndBadRequests(t *testing.T) {
	s := startProxy(t, lockServer(t))
	_, m := s.request("tools/list", "")
	if m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("legacy request before initialize: %+v", m.Error)
	}
	_, m = s.request("tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`)
	if m.Error == nil || m.Error.Code != -32022 || !strings.Contains(string(m.Error.Data), "2026-07-28") {
		t.Errorf("unknown version: %+v", m.Error)
	}
	_, m = s.request("server/discover", `{}`)
	if m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("discover without _meta: %+v", m.Error)
	}
	_, m = s.request("tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	if m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("modern request without clientCapabilities: %+v", m.Error)
	}
	// A duplicate "name" must not let one name be checked and another run.
	_, m = s.request("tools/call", modern(`{"name":"add","name":"evil","arguments":{}}`))
	if m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("duplicate name: %+v", m.Error)
	}
	s.send(`{not json`)
	if l := s.recv(); !strings.Contains(string(l), "-32700") {
		t.Errorf("parse error: %s", l)
	}
}

func TestPagination(t *testing.T) {
	e := lockServer(t, "-tools=250", "-pagesize=7")
	s := startProxy(t, e)
	var all []json.RawMessage
	var cursor string
	for page := 0; ; page++ {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		_, m := s.request("tools/list", modern(params))
		var r struct {
			Tools      []json.RawMessage
			NextCursor *string
		}
		if err := json.Unmarshal(m.Result, &r); err != nil || m.Error != nil {
			t.Fatalf("page %d: %s %+v", page, m.Result, m.Error)
		}
		all = append(all, r.Tools...)
		if r.NextCursor == nil {
			break
		}
		cursor = *r.NextCursor
	}
	if len(all) != len(e.Tools) {
		t.Fatalf("served %d tools over pages, locked %d", len(all), len(e.Tools))
	}
	for i := range all {
		if !bytes.Equal(all[i], e.Tools[i]) {
			t.Fatalf("tool %d differs from the lock", i)
		}
	}
	_, m := s.request("tools/list", modern(`{"cursor":"bogus"}`))
	if m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("bad cursor: %+v", m.Error)
	}
}
