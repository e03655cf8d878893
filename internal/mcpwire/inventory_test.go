package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
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
	h := &Hello{Era: mcpspec.EraModern, ProtocolVersion: mcpspec.Modern, Capabilities: json.RawMessage(`{"tools":{},"resources":{},"prompts":null,"logging":{}}`)}
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
	if _, err := ListAll(context.Background(), c, &Hello{Era: mcpspec.EraLegacy, Capabilities: json.RawMessage(`{"prompts":{}}`)}); err != nil {
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
		{mcpspec.EraModern, `{"resultType":"input_required","tools":[]}`, `resultType is "input_required"`},
		{mcpspec.EraModern, `{"tools":[],"nextCursor":5}`, "nextCursor is not a string"},
		{mcpspec.EraLegacy, `{"items":[]}`, `no "tools" array`},
		{mcpspec.EraLegacy, `{"tools":{}}`, `"tools" is not an array`},
		{mcpspec.EraLegacy, `{"tools":[{"title":"x"}]}`, `a tool has no string "name"`},
		{mcpspec.EraLegacy, `{"tools":[{"name":1}]}`, `a tool has no string "name"`},
		{mcpspec.EraLegacy, `{"tools":["x"]}`, "a tool is not a JSON object"},
		{mcpspec.EraLegacy, `[]`, "not a JSON object"},
		{mcpspec.EraLegacy, `{"tools":[{"name":"x\u001b[1m"},{"name":"x\u001b[1m"}]}`, `name "x\u001b[1m"`},
	}
	for _, tc := range tests {
		c := &pagesCaller{pages: map[string][]string{"tools/list": {tc.page}}}
		_, err := ListAll(context.Background(), c, &Hello{Era: tc.era, ProtocolVersion: mcpspec.Modern, Capabilities: caps})
		if err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("page %s: err = %v, want %q", tc.page, err, tc.errHas)
		}
	}
	// Legacy results may carry resultType (go-sdk sends ttlMs/cacheScope too): ignored.
	c := &pagesCaller{pages: map[string][]string{"tools/list": {`{"resultType":"whatever","ttlMs":0,"tools":[]}`}}}
	if _, err := ListAll(context.Background(), c, &Hello{Era: mcpspec.EraLegacy, Capabilities: caps}); err != nil {
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
	h := &Hello{Era: mcpspec.EraLegacy, Capabilities: json.RawMessage(`{"tools":{}}`)}
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

// errCaller answers some methods with a JSON-RPC error, others from pages.
type errCaller struct {
	pagesCaller
	errs map[string]*Error // method -> error on its call number n (errAt)
	at   map[string]int
}

func (e *errCaller) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err, ok := e.errs[method]; ok && e.at[method] == 0 {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	e.at[method]--
	return e.pagesCaller.Call(ctx, method, params)
}

// A -32601 for the first page of an advertised list is an empty list of that
// kind (recorded in NotFound); on a later page, or any other code, it fails.
func TestListAllMethodNotFoundIsEmpty(t *testing.T) {
	h := &Hello{Era: mcpspec.EraLegacy, Capabilities: json.RawMessage(`{"tools":{},"resources":{}}`)}
	notFound := &Error{Code: mcpspec.CodeMethodNotFound, Message: "Method not found"}
	c := &errCaller{
		pagesCaller: pagesCaller{pages: map[string][]string{
			"tools/list":     {`{"tools":[{"name":"a"}]}`},
			"resources/list": {`{"resources":[{"uri":"u:1","name":"one"}]}`},
		}},
		errs: map[string]*Error{"resources/templates/list": notFound},
		at:   map[string]int{},
	}
	s, err := ListAll(context.Background(), c, h)
	if err != nil {
		t.Fatal(err)
	}
	if s.ResourceTemplates == nil || len(s.ResourceTemplates) != 0 || len(s.Resources) != 1 ||
		strings.Join(s.NotFound, ",") != "resources/templates/list" {
		t.Fatalf("surface: templates %v resources %d notFound %v", s.ResourceTemplates, len(s.Resources), s.NotFound)
	}

	// -32601 on the second page is a broken server, not an empty list.
	c = &errCaller{
		pagesCaller: pagesCaller{pages: map[string][]string{"tools/list": {`{"tools":[{"name":"a"}],"nextCursor":"2"}`}}},
		errs:        map[string]*Error{"tools/list": notFound},
		at:          map[string]int{"tools/list": 1},
	}
	if _, err := ListAll(context.Background(), c, &Hello{Era: mcpspec.EraLegacy, Capabilities: json.RawMessage(`{"tools":{}}`)}); err == nil || !strings.Contains(err.Error(), "-32601") {
		t.Fatalf("-32601 on page 2: err %v", err)
	}
	// Another error code for an advertised list still fails the lock.
	c = &errCaller{
		errs: map[string]*Error{"tools/list": {Code: mcpspec.CodeInternalError, Message: "boom"}},
		at:   map[string]int{},
	}
	if _, err := ListAll(context.Background(), c, &Hello{Era: mcpspec.EraLegacy, Capabilities: json.RawMessage(`{"tools":{}}`)}); err == nil {
		t.Fatal("-32603 for tools/list was accepted")
	}
}
