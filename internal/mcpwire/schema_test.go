package mcpwire

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpsum/mcpsum/internal/mcpspec"
)

// What mcpsum sends is validated against the official MCP JSON Schemas
// (testdata/mcp-schema, verbatim copies; see SOURCE.txt there) with
// github.com/google/jsonschema-go, which handles both draft-07 (2025-06-18)
// and 2020-12 (2025-11-25, 2026-07-28) with $ref into definitions/$defs.

var (
	schemaMu    sync.Mutex
	schemaRoots = map[string]map[string]any{}
	schemaCache = map[string]*jsonschema.Resolved{}
)

// schemaFor returns the resolved schema of definition def in version v.
func schemaFor(t testing.TB, v, def string) *jsonschema.Resolved {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	key := v + "#" + def
	if r := schemaCache[key]; r != nil {
		return r
	}
	root := schemaRoots[v]
	if root == nil {
		b, err := os.ReadFile(filepath.Join("testdata", "mcp-schema", v, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &root); err != nil {
			t.Fatal(err)
		}
		schemaRoots[v] = root
	}
	defsKey := "$defs"
	if _, ok := root["definitions"]; ok {
		defsKey = "definitions"
	}
	if _, ok := root[defsKey].(map[string]any)[def]; !ok {
		t.Fatalf("schema %s has no definition %s", v, def)
	}
	// A wrapper whose only constraint is the definition (allOf, so that
	// draft-07 does not ignore the sibling definitions).
	wrapper := map[string]any{
		"$schema": root["$schema"],
		"allOf":   []any{map[string]any{"$ref": "#/" + defsKey + "/" + def}},
		defsKey:   root[defsKey],
	}
	b, _ := json.Marshal(wrapper)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("schema %s: %v", v, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve %s %s: %v", v, def, err)
	}
	schemaCache[key] = r
	return r
}

func validateJSON(t testing.TB, v, def string, raw []byte) error {
	t.Helper()
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return err
	}
	if err := schemaFor(t, v, def).Validate(inst); err != nil {
		return fmt.Errorf("%s %s: %w", v, def, err)
	}
	return nil
}

var requestDefs = map[string]string{
	"initialize":                "InitializeRequest",
	"notifications/initialized": "InitializedNotification",
	"server/discover":           "DiscoverRequest",
	"tools/list":                "ListToolsRequest",
	"prompts/list":              "ListPromptsRequest",
	"resources/list":            "ListResourcesRequest",
	"resources/templates/list":  "ListResourceTemplatesRequest",
}

// tracer records the lines a client sends and receives.
type tracer struct {
	mu         sync.Mutex
	sent, recv [][]byte
}

func (tr *tracer) trace(dir string, line []byte) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if dir == "send" {
		tr.sent = append(tr.sent, append([]byte(nil), line...))
	} else {
		tr.recv = append(tr.recv, append([]byte(nil), line...))
	}
}

// validateSent checks every line mcpsum sent in a session of hello's era:
// initialize against 2025-11-25 (the version it asks for), later legacy
// messages against the negotiated version's schema when there is one, and
// everything modern (server/discover included) against 2026-07-28.
func (tr *tracer) validateSent(t testing.TB, h *Hello) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.sent) == 0 {
		t.Fatal("nothing was sent")
	}
	legacy := "2025-11-25"
	if h.Era == mcpspec.EraLegacy && h.ProtocolVersion == "2025-06-18" {
		legacy = "2025-06-18"
	}
	for _, line := range tr.sent {
		m, err := Decode(line)
		if err != nil {
			t.Fatalf("mcpsum sent a line that does not decode: %v", err)
		}
		v := legacy
		switch {
		case m.Method == "server/discover" || (h.Era == mcpspec.EraModern && m.Method != ""):
			v = mcpspec.Modern
		case m.Method == "initialize":
			v = mcpspec.LegacyVersion
		}
		def := requestDefs[m.Method]
		switch {
		case m.Method != "" && def == "":
			t.Errorf("unexpected method sent: %s", m.Method)
			continue
		case m.Error != nil:
			def = map[bool]string{true: "JSONRPCError", false: "JSONRPCErrorResponse"}[v == "2025-06-18"]
		case m.Result != nil && strings.Contains(string(m.Result), `"roots"`):
			if err := validateJSON(t, v, "ListRootsResult", m.Result); err != nil {
				t.Errorf("sent %s: %v", line, err)
			}
			def = map[bool]string{true: "JSONRPCResponse", false: "JSONRPCResultResponse"}[v == "2025-06-18"]
		case m.Result != nil:
			def = map[bool]string{true: "JSONRPCResponse", false: "JSONRPCResultResponse"}[v == "2025-06-18"]
		}
		if err := validateJSON(t, v, def, line); err != nil {
			t.Errorf("sent %s\n  invalid: %v", line, err)
		}
		if err := validateJSON(t, v, "JSONRPCMessage", line); err != nil {
			t.Errorf("sent %s\n  invalid: %v", line, err)
		}
	}
}

// The validator is not vacuous: messages missing required parts are rejected.
func TestSchemaValidatorRejects(t *testing.T) {
	bad := []struct{ v, def, msg string }{
		{mcpspec.Modern, "ListToolsRequest", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`},
		{mcpspec.Modern, "ListToolsRequest", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{mcpspec.Modern, "DiscoverRequest", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`},
		{"2025-11-25", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`},
		{"2025-06-18", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`},
		{"2025-11-25", "JSONRPCMessage", `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{"2025-11-25", "InitializedNotification", `{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}`},
	}
	for _, b := range bad {
		if err := validateJSON(t, b.v, b.def, []byte(b.msg)); err == nil {
			t.Errorf("%s %s accepted %s", b.v, b.def, b.msg)
		}
	}
	good := []struct{ v, def, msg string }{
		{mcpspec.Modern, "DiscoverRequest", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":` + string(metaFor(mcpspec.Modern, ClientCapabilities(mcpspec.EraModern))) + `}}`},
		{"2025-06-18", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`},
		// mcpsum's own declared capabilities are valid in every schema it speaks.
		{"2025-06-18", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + string(InitializeParams()) + `}`},
		{"2025-11-25", "InitializeRequest", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + string(InitializeParams()) + `}`},
		{mcpspec.Modern, "DiscoverRequest", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":` + string(DiscoverParams()) + `}`},
		{mcpspec.Modern, "ListToolsRequest", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + string(Meta(&Hello{Era: mcpspec.EraModern, ProtocolVersion: mcpspec.Modern})) + `}}`},
	}
	for _, g := range good {
		if err := validateJSON(t, g.v, g.def, []byte(g.msg)); err != nil {
			t.Errorf("%s %s rejected %s: %v", g.v, g.def, g.msg, err)
		}
	}
}
