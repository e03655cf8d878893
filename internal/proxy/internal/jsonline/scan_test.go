package jsonline

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestScanEnvelope(t *testing.T) {
	for _, tc := range []struct {
		line             string
		id, method, kind string // kind: req, note, resp, err
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, "1", "tools/call", "req"},
		{`{"result":{"content":[{"type":"text","text":"a\"}{][\\"}]},"jsonrpc":"2.0","id":"s-1"}`, `"s-1"`, "", "resp"},
		{` { "method" : "notifications/progress" , "params" : { "progressToken" : 1 } } `, "", "notifications/progress", "note"},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope"}}`, "7", "", "resp"},
		{`{"\u0069d":3,"method":"ping"}`, "3", "ping", "req"},
		{`{"id":1,"id":2,"method":"ping"}`, "", "", "err"},
		{`{"id":1,"method":"ping"`, "", "", "err"},
		{`[{"id":1,"method":"ping"}]`, "", "", "err"},
		{`{"id":1,"method":"ping"} x`, "", "", "err"},
		{`{"id":null,"error":{"code":-32700,"message":"parse"}}`, "null", "", "resp"},
		{`{"id":1,"method":5}`, "", "", "err"},
	} {
		env, id, err := ScanEnvelope([]byte(tc.line))
		if tc.kind == "err" {
			if err == nil {
				t.Errorf("%s: want an error", tc.line)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		m, _ := StringAt([]byte(tc.line), env.Method)
		if string(id) != tc.id || m != tc.method {
			t.Errorf("%s: id %s method %q", tc.line, id, m)
		}
		kind := map[bool]string{true: "req"}[env.IsRequest()] + map[bool]string{true: "note"}[env.IsNotification()] + map[bool]string{true: "resp"}[env.IsResponse()]
		if kind != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.line, kind, tc.kind)
		}
	}
}

func TestSpliceKeepsBytes(t *testing.T) {
	line := []byte(`{"result":{"z":1,"a":"\u00e9<&>"},"jsonrpc":"2.0","id":42}`)
	env, _, _ := ScanEnvelope(line)
	parts := Splice(line, env.ID, []byte(`"client-7"`))
	got := Concat(parts[:]...)
	want := `{"result":{"z":1,"a":"\u00e9<&>"},"jsonrpc":"2.0","id":"client-7"}`
	if string(got) != want {
		t.Errorf("got %s", got)
	}
}

// FuzzScanEnvelope checks that the scanner never disagrees with an exact
// reading of the message (topMembers: keys compared byte for byte, as MCP
// peers do; encoding/json's case-insensitive match read "ID" as the id)
// about the id and method of a message both accept.
func FuzzScanEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"result":{"t":"a\"b\\"},"id":"x"}`,
		`{"\u0069d":3,"method":"p\u0069ng"}`,
		`{"id":[1,{"a":"]"}],"method":"m"}`,
		`{"id":1,"ID":2}`,
		`{"Method":"x","method":"ping","id":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, id, err := ScanEnvelope(b)
		if err != nil || !json.Valid(b) {
			return
		}
		m, ok := topMembers(b)
		if !ok {
			return
		}
		if id != nil && !bytes.Equal(m["id"], id) {
			t.Errorf("id: scanner %s, exact reading %s", id, m["id"])
		}
		method, ok := StringAt(b, env.Method)
		var want string
		if ok && json.Unmarshal(m["method"], &want) != nil || ok && want != method {
			t.Errorf("method: scanner %q, exact reading %s", method, m["method"])
		}
	})
}

// topMembers reads the top-level members of the JSON object b exactly:
// names compared byte for byte after unescaping, values raw. ok is false
// for anything but an object whose names are all distinct.
func topMembers(b []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		m[key] = raw
	}
	return m, true
}
