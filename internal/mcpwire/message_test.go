package mcpwire

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name                string
		in                  string
		id                  string
		req, notif, resp    bool
		method, result, err string // err: substring of the decode error
	}{
		{name: "int id", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: `1`, req: true, method: "ping"},
		{name: "string id differs", in: `{"jsonrpc":"2.0","id":"1","method":"ping"}`, id: `"1"`, req: true, method: "ping"},
		{name: "big id kept exactly", in: `{"id":12345678901234567890,"result":{}}`, id: `12345678901234567890`, resp: true, result: `{}`},
		{name: "fraction id kept", in: `{"id":1.50,"result":{}}`, id: `1.50`, resp: true, result: `{}`},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, notif: true, method: "notifications/initialized"},
		{name: "result first (TS order)", in: `{"result":{"a" : [1,2]},"jsonrpc":"2.0","id":3}`, id: `3`, resp: true, result: `{"a" : [1,2]}`},
		{name: "error response", in: `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found"}}`, id: `4`, resp: true},
		{name: "null id error", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, id: `null`, resp: true},
		{name: "null result", in: `{"id":5,"result":null}`, id: `5`, resp: true, result: `null`},
		{name: "invalid utf8", in: "{\"id\":1,\"result\":\"\xff\"}", err: "invalid UTF-8"},
		{name: "batch", in: `[{"id":1,"method":"ping"}]`, err: "batch"},
		{name: "not json", in: `Starting server...`, err: "not JSON"},
		{name: "not object", in: `"hello"`, err: "not a JSON object"},
		{name: "truncated", in: `{"id":1,"result":{`, err: "not JSON"},
		{name: "empty object", in: `{}`, err: "neither"},
		{name: "bad error member", in: `{"id":1,"error":"boom"}`, err: "malformed"},
		{name: "bad id type still decodes", in: `{"id":{"x":1},"result":{}}`, id: `{"x":1}`, resp: true, result: `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := []byte(tc.in)
			m, err := Decode(line)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrNotMessage) {
					t.Fatalf("err = %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(m.ID) != tc.id || m.Method != tc.method || m.IsRequest() != tc.req ||
				m.IsNotification() != tc.notif || m.IsResponse() != tc.resp {
				t.Fatalf("got id %s method %q req %v notif %v resp %v", m.ID, m.Method, m.IsRequest(), m.IsNotification(), m.IsResponse())
			}
			if tc.result != "" && string(m.Result) != tc.result {
				t.Errorf("result %s, want %s", m.Result, tc.result)
			}
			// The message holds copies: scribbling on the line changes nothing.
			for i := range line {
				line[i] = 'X'
			}
			if string(m.ID) != tc.id {
				t.Errorf("id aliases the input line")
			}
		})
	}
}

func TestDecodeErrorQuotesLine(t *testing.T) {
	_, err := Decode([]byte("\x1b[2Jgotcha" + strings.Repeat("!", 1000)))
	msg := err.Error()
	if strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, `\u001b[2Jgotcha`) || !strings.Contains(msg, "more bytes") {
		t.Fatalf("decode error not escaped and truncated: %s", msg)
	}
}

func TestIntID(t *testing.T) {
	for in, want := range map[string]bool{`1`: true, `-3`: true, `0`: true, `"1"`: false, `1.0`: false, `1e2`: false, `-`: false, ``: false, `null`: false, `99999999999999999999`: false} {
		m := &Message{ID: []byte(in)}
		if _, ok := m.IntID(); ok != want {
			t.Errorf("IntID(%s) ok = %v", in, ok)
		}
	}
}

func TestErrorMessageEscaped(t *testing.T) {
	e := &Error{Code: -32000, Message: "bad\x1b[31m red\nline"}
	if s := e.Error(); strings.ContainsAny(s, "\x1b\n") || !strings.Contains(s, "-32000") {
		t.Fatalf("unsafe error text: %q", s)
	}
}

func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Decode(line)
	}
}
