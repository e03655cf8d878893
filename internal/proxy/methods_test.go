package proxy

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// refuseAll is a policy hook that refuses every call it sees with its own
// code: a call that reached it passed the proxy's own checks (the server,
// which does not serve every method, never sees one).
type refuseAll struct{}

func (refuseAll) BeforeCall(_ CallInfo, _ []byte, _ Session, decide func(Verdict)) {
	decide(Verdict{Refuse: &CallError{Code: -31999, Message: "refused by the test's hook"}})
}
func (refuseAll) BeforeResult(CallInfo, ResultInfo) *CallError { return nil }

// The table's era column, against a real session of each client era: a
// method the column gives to the other era only is the proxy's method not
// found; one it gives to this era is not (it is answered, or reaches the
// policy hook); a method not in the table is not forwarded; before
// initialize a legacy client may send only the rows marked early.
func TestMethodTableEras(t *testing.T) {
	e := lockServer(t, legacyOnly)
	hook := func(o *Options) { o.Hooks = refuseAll{} }
	legacy := startProxy(t, e, hook)
	_, m := legacy.request("tools/list", "{}")
	if m.Error == nil || !strings.Contains(m.Error.Message, "before initialize") {
		t.Fatalf("tools/list before initialize: %+v", m.Error)
	}
	legacy.initialize()
	modernS := startProxy(t, e, hook)
	params := map[string]string{
		"tools/call":            `{"name":"echo","arguments":{"text":"x"}}`,
		"prompts/get":           `{"name":"greet","arguments":{"name":"x"}}`,
		"resources/read":        `{"uri":"probe://static/readme"}`,
		"resources/subscribe":   `{"uri":"probe://static/readme"}`,
		"resources/unsubscribe": `{"uri":"probe://static/readme"}`,
		"logging/setLevel":      `{"level":"info"}`,
		"completion/complete":   `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"x"}}`,
		"tasks/get":             `{"taskId":"none"}`,
		"tasks/cancel":          `{"taskId":"none"}`,
		"tasks/result":          `{"taskId":"none"}`,
		"tasks/update":          `{"taskId":"none"}`,
		"subscriptions/listen":  `{"notifications":{}}`,
	}
	for method, row := range clientMethods {
		if method == "initialize" || method == "subscriptions/listen" {
			continue // they change the session; their era is checked below
		}
		for _, c := range []struct {
			s      *session
			modern bool
		}{{legacy, false}, {modernS, true}} {
			p := params[method]
			if p == "" {
				p = "{}"
			}
			if c.modern {
				p = modern(p)
			}
			_, m := c.s.request(method, p)
			notFound := m.Error != nil && m.Error.Code == -32601
			if want := !row.era.allows(c.modern); notFound != want {
				t.Errorf("%s from a %s client: %+v, want method not found %v", method, map[bool]string{false: "legacy", true: "2026-07-28"}[c.modern], m.Error, want)
			}
		}
	}
	if _, m := modernS.request("initialize", modern(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}`)); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("initialize from a 2026-07-28 client: %+v", m.Error)
	}
	if _, m := legacy.request("subscriptions/listen", `{"notifications":{}}`); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("subscriptions/listen from a legacy client: %+v", m.Error)
	}
	if _, m := legacy.request("sampling/createMessage", "{}"); m.Error == nil || m.Error.Code != -32601 || !strings.Contains(m.Error.Message, "does not forward") {
		t.Errorf("a method not in the table: %+v", m.Error)
	}
}

// The table's rows are consistent: an answered row has the proxy's
// answer; a row that is routeGated only in some case has the answer for the
// other case; only routeGated rows check the lock or send roots first.
func TestMethodTableRows(t *testing.T) {
	for method, m := range clientMethods {
		switch {
		case m.route != routeGated && m.serve == nil:
			t.Errorf("%s: route %d without the proxy's answer (serve)", method, m.route)
		case m.roots && m.route != routeGated:
			t.Errorf("%s: roots go first only for a call routeGated to the server", method)
		case m.retry && !m.roots:
			t.Errorf("%s: a bridged retry of it needs the roots rule too", method)
		case m.early && m.era == eraModernClient && method != "server/discover":
			t.Errorf("%s: early is a legacy client's rule", method)
		}
	}
}

// schemaClientMethods are the methods of ClientRequest in the official
// schema of version v (internal/mcpwire/testdata/mcp-schema, verbatim
// copies).
func schemaClientMethods(t *testing.T, v string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "mcpwire", "testdata", "mcp-schema", v, "schema.json"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("the schemas of internal/mcpwire/testdata are not beside this package (a Bazel sandbox)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]struct {
			AnyOf []struct {
				Ref string `json:"$ref"`
			} `json:"anyOf"`
			Properties struct {
				Method struct {
					Const string `json:"const"`
				} `json:"method"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range doc.Defs["ClientRequest"].AnyOf {
		out[doc.Defs[path.Base(r.Ref)].Properties.Method.Const] = true
	}
	if len(out) < 10 {
		t.Fatalf("%s: read %d client methods from the schema", v, len(out))
	}
	return out
}

// The table's era column is the schemas': a row may be sent by a legacy
// client exactly when 2025-11-25's ClientRequest has it, by a 2026-07-28
// client exactly when 2026-07-28's has it (or the tasks extension, which
// that schema leaves out); and every client method of either schema has a
// row.
func TestMethodTableMatchesSchemas(t *testing.T) {
	legacy, modern := schemaClientMethods(t, "2025-11-25"), schemaClientMethods(t, "2026-07-28")
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		modern[m] = true // the 2026-07-28 tasks extension
	}
	for method, row := range clientMethods {
		if row.era.allows(false) != legacy[method] || row.era.allows(true) != modern[method] {
			t.Errorf("%s: the table lets legacy %v, 2026-07-28 %v; the schemas %v, %v", method, row.era.allows(false), row.era.allows(true), legacy[method], modern[method])
		}
	}
	for _, set := range []map[string]bool{legacy, modern} {
		for method := range set {
			if _, ok := clientMethods[method]; !ok {
				t.Errorf("%s is a client method of the schemas and has no row", method)
			}
		}
	}
}
