package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// pagesCaller serves canned list results, one per call, and records params.
type pagesCaller struct {
	pages  map[string][]string // method -> results, in order
	params []string
}

func (p *pagesCaller) Call(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.params = append(p.params, method+" "+string(params))
	r := p.pages[method]
	if len(r) == 0 {
		return nil, fmt.Errorf("%s: no more pages", method)
	}
	p.pages[method] = r[1:]
	return json.RawMessage(r[0]), nil
}

func TestListAllEnvelopeAndCursors(t *testing.T) {
	c := &pagesCaller{pages: map[string][]string{
		"tools/list": {
			`{"resultType":"complete","ttlMs":5,"cacheScope":"public","_meta":{"x":1},"tools":[{"name":"a", "inputSchema" : {}}],"nextCursor":""}`,
			`{"tools":[{"name":"b","inputSchema":{}}],"nextCursor":null}`,
		},
		"resources/list":           {`{"resources":[{"uri":"u:1","name":"one"}]}`},
		"resources/templates/list": {`{"resourceTemplates":null}`},
	}}
	h := &Hello{Era: EraModern, ProtocolVersion: Modern, Capabilities: json.RawMessage(`{"tools":{},"resources":{},"prompts":null,"logging":{}}`)}
	s, err := ListAll(context.Background(), c, h)
	if err != nil {
		t.Fatal(err)
	}
	// "" is a cursor; null ends; items keep their bytes (spaces included).
	if len(s.Tools) != 2 || string(s.Tools[0]) != `{"name":"a", "inputSchema" : {}}` || len(s.Resources) != 1 ||
		s.Prompts == nil || len(s.Prompts) != 0 || s.ResourceTemplates == nil {
		t.Fatalf("surface %+v", s)
	}
	meta := string(Meta(h))
	want := []string{
		`tools/list {"_meta":` + meta + `}`,
		`tools/list {"_meta":` + meta + `,"cursor":""}`,
		`resources/list {"_meta":` + meta + `}`,
		`resources/templates/list {"_meta":` + meta + `}`,
	}
	if strings.Join(c.params, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(c.params, "\n"), strings.Join(want, "\n"))
	}
	// Legacy: no _meta, first page without params.
	c = &pagesCaller{pages: map[string][]string{"prompts/list": {`{"prompts":[{"name":"p"}],"nextCursor":"2"}`, `{"prompts":[]}`}}}
	if _, err := ListAll(context.Background(), c, &Hello{Era: EraLegacy, Capabilities: json.RawMessage(`{"prompts":{}}`)}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.params, "|") != `prompts/list |prompts/list {"cursor":"2"}` {
		t.Fatalf("legacy requests %q", c.params)
	}
}

func TestListAllRejects(t *testing.T) {
	caps := json.RawMessage(`{"tools":{}}`)
	tests := []struct {
		era, page, errHas string
	}{
		{EraModern, `{"resultType":"input_required","tools":[]}`, `resultType is "input_required"`},
		{EraModern, `{"tools":[],"nextCursor":5}`, "nextCursor is not a string"},
		{EraLegacy, `{"items":[]}`, `no "tools" array`},
		{EraLegacy, `{"tools":{}}`, `"tools" is not an array`},
		{EraLegacy, `{"tools":[{"title":"x"}]}`, `a tool has no string "name"`},
		{EraLegacy, `{"tools":[{"name":1}]}`, `a tool has no string "name"`},
		{EraLegacy, `{"tools":["x"]}`, "a tool is not a JSON object"},
		{EraLegacy, `[]`, "not a JSON object"},
		{EraLegacy, `{"tools":[{"name":"x\u001b[1m"},{"name":"x\u001b[1m"}]}`, `name "x\u001b[1m"`},
	}
	for _, tc := range tests {
		c := &pagesCaller{pages: map[string][]string{"tools/list": {tc.page}}}
		_, err := ListAll(context.Background(), c, &Hello{Era: tc.era, ProtocolVersion: Modern, Capabilities: caps})
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("page %s: err = %v, want %q", tc.page, err, tc.errHas)
		}
	}
	// Legacy results may carry resultType (go-sdk sends ttlMs/cacheScope too): ignored.
	c := &pagesCaller{pages: map[string][]string{"tools/list": {`{"resultType":"whatever","ttlMs":0,"tools":[]}`}}}
	if _, err := ListAll(context.Background(), c, &Hello{Era: EraLegacy, Capabilities: caps}); err != nil {
		t.Fatal(err)
	}
}

// manyToolsLine is one tools/list reply line with n realistic tools.
func manyToolsLine(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%04d","description":"Does thing %d to a file in the workspace; returns JSON.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"absolute path"},"mode":{"type":"string","enum":["a","b","c"]},"count":{"type":"integer","minimum":0}},"required":["path"],"additionalProperties":false},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`, i, i)
	}
	b.WriteString(`]}}` + "\n")
	return b.Bytes()
}

// oneShot returns a result that came out of Decode (like a Client's).
type oneShot struct{ res json.RawMessage }

func (oneShot) validatesJSON() {}

func (o oneShot) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return o.res, nil
}

// BenchmarkInventory1000Tools is mcpsum's own work for a 1000-tool server:
// framing the reply line, decoding it, and the inventory (keys, dups, copies).
func BenchmarkInventory1000Tools(b *testing.B) {
	line := manyToolsLine(1000)
	h := &Hello{Era: EraLegacy, Capabilities: json.RawMessage(`{"tools":{}}`)}
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l, err := NewLineReader(bytes.NewReader(line), 0).Next()
		if err != nil {
			b.Fatal(err)
		}
		m, err := Decode(l)
		if err != nil {
			b.Fatal(err)
		}
		s, err := ListAll(context.Background(), oneShot{m.Result}, h)
		if err != nil || len(s.Tools) != 1000 {
			b.Fatal(err)
		}
	}
}
