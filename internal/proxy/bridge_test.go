package proxy

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpsum/mcpsum/internal/proxy/internal/jsonline"
)

// A legacy client's capabilities reach a 2026-07-28 server translated, read
// by exact key: a case variant or a duplicate of a member the bridge acts
// on (tasks, roots, extensions, the tasks extension) makes them declare
// nothing, where encoding/json kept "Tasks" after dropping "tasks" (a
// server matching keys case-insensitively read it); "extensions":null on a
// task-augmented call no longer panics (a nil map was written).
func TestModernClientCapsExactKeys(t *testing.T) {
	for _, tc := range []struct {
		in    string
		tasks bool
		want  string
	}{
		{`{"roots":{"listChanged":true},"sampling":{},"tasks":{"requests":{}}}`, false, `{"roots":{},"sampling":{}}`},
		{`{ "sampling" : { "x" : [ 1, 2 ] } , "elicitation":{"form":{}}}`, false, `{"elicitation":{"form":{}},"sampling":{"x":[1,2]}}`},
		{`{"roots":{}}`, true, `{"extensions":{"` + tasksExt + `":{}},"roots":{}}`},
		{`{"extensions":{"x.example/y":{"a":1}}}`, true, `{"extensions":{"` + tasksExt + `":{},"x.example/y":{"a":1}}}`},
		{`{"extensions":null}`, true, `{"extensions":{"` + tasksExt + `":{}}}`},
		{`{"tasks":{},"Tasks":{"requests":{}}}`, false, `{}`},
		{`{"sampling":{},"ROOTS":{"listChanged":true}}`, false, `{}`},
		{`{"roots":{},"roots":{"listChanged":true}}`, false, `{}`},
		{`{"sampling":{},"sampling":{}}`, false, `{}`},
		{`{"extensions":{"IO.modelcontextprotocol/TASKS":{"x":1}}}`, true, `{"extensions":{"` + tasksExt + `":{}}}`},
		{`[]`, false, `{}`},
		{``, true, `{"extensions":{"` + tasksExt + `":{}}}`},
	} {
		if got := string(modernClientCaps([]byte(tc.in), tc.tasks)); got != tc.want {
			t.Errorf("modernClientCaps(%s, %v) = %s, want %s", tc.in, tc.tasks, got, tc.want)
		}
	}
}

func TestStripAndInjectMeta(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p","io.modelcontextprotocol/clientCapabilities":{}},"name":"x"}}`)
	env, _, _ := jsonline.ScanEnvelope(line)
	f, _, _ := jsonline.Fields(line, env.Params, "_meta")
	if got := string(stripReserved(line, f[0])); got != `{"progressToken":"p"}` {
		t.Errorf("strip: %s", got)
	}
	p := &Proxy{srv: &served{upEra: "modern"}}
	p.client.caps = json.RawMessage(`{"roots":{"listChanged":true},"tasks":{}}`)
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":3}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{}}}`,
	} {
		b := []byte(in)
		env, id, _ := jsonline.ScanEnvelope(b)
		pf, _, _ := jsonline.Fields(b, env.Params, "_meta")
		r := &request{line: b, env: env, id: id, meta: pf[0]}
		for _, extra := range [][]byte{nil, []byte(`"requestState":"s"`)} {
			out := bytes.Join(p.upstreamParts(r, 9, extra), nil)
			var m struct {
				ID     int
				Params struct {
					Meta         map[string]json.RawMessage `json:"_meta"`
					RequestState string
				}
			}
			if err := json.Unmarshal(out, &m); err != nil {
				t.Errorf("%s -> invalid %s: %v", in, out, err)
				continue
			}
			if m.ID != 9 || string(m.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"` ||
				string(m.Params.Meta["io.modelcontextprotocol/clientCapabilities"]) != `{"roots":{}}` ||
				(extra != nil) != (m.Params.RequestState == "s") {
				t.Errorf("%s -> %s", in, out)
			}
		}
	}
}
