package lockfile

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseStrict feeds malformed variants of testdata/lockfiles/valid.lock
// (each one change) and checks the *FormatError names file, server and item.
func TestParseStrict(t *testing.T) {
	const (
		timeProto = `"protocolVersion": "2025-11-25",`
		timeDesc  = `"description": "Convert time between timezones",`
		timeSink  = "\"sinks\": [\n            \"convert_time\"\n          ]"
		digestCT  = `"convert_time": "sha256:2087112606139ff11543d6ae15c2b207575b144885ac46cc3c7bac5825615531"`
		allowTime = `"allow": []`
	)
	type mut struct{ old, new string }
	tests := []struct {
		name    string
		muts    []mut
		raw     string // used instead of muts when set
		server  string
		item    string // substring of FormatError.Item
		message string // substring of the error text
	}{
		{name: "unknown top-level key", muts: []mut{{`"generator": "mcpsum 0.1.0",`, `"generator": "mcpsum 0.1.0", "extra": 1,`}},
			item: "top level", message: `unknown key "extra"`},
		{name: "unknown entry key", muts: []mut{{timeProto, timeProto + ` "env": {"A": "b"},`}},
			server: "time", message: `unknown key "env"`},
		{name: "unknown digests key", muts: []mut{{`"surface": "sha256:fb3d`, `"tool": {}, "surface": "sha256:fb3d`}},
			server: "time", item: "digests", message: `unknown key "tool"`},
		{name: "unknown policy key", muts: []mut{{"\"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\"", "\"policy\": {\"approve\": true,\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\""}},
			server: "time", item: "policy", message: `unknown key "approve"`},
		{name: "unknown taint key", muts: []mut{{timeSink, timeSink + `, "sink": []`}},
			server: "time", item: "policy.taint", message: `unknown key "sink"`},
		{name: "unknown sandbox key", muts: []mut{{"\"network\": {\n            \"allow\": []\n          }", "\"network\": {\n            \"allow\": []\n          }, \"seccomp\": {}"}},
			server: "time", item: "policy.sandbox", message: `unknown key "seccomp"`},
		{name: "unknown filesystem key", muts: []mut{{`"~/notes"`, `"~/notes"], "exec": ["/bin"`}},
			server: "time", item: "policy.sandbox.filesystem", message: `unknown key "exec"`},
		{name: "unknown network key", muts: []mut{{allowTime, allowTime + `, "deny": []`}},
			server: "time", item: "policy.sandbox.network", message: `unknown key "deny"`},
		{name: "command is a string", muts: []mut{{"\"command\": [\n        \"uvx\",\n        \"mcp-server-time==2026.8.18\"\n      ]", `"command": "uvx mcp-server-time"`}},
			server: "time", item: "command", message: "want an array of strings, got a string"},
		{name: "command empty", muts: []mut{{"\"command\": [\n        \"uvx\",\n        \"mcp-server-time==2026.8.18\"\n      ]", `"command": []`}},
			server: "time", item: "command", message: "non-empty argv"},
		{name: "envPassthrough element not a string", muts: []mut{{`"envPassthrough": [],`, `"envPassthrough": [1],`}},
			server: "time", item: "envPassthrough", message: "element 0: want a string, got a number"},
		{name: "envPassthrough bad name", muts: []mut{{`"envPassthrough": [],`, `"envPassthrough": ["A-B"],`}},
			server: "time", item: "envPassthrough", message: `"A-B" is not an environment variable name`},
		{name: "envPassthrough null", muts: []mut{{`"envPassthrough": [],`, `"envPassthrough": null,`}},
			server: "time", item: "envPassthrough", message: "got null"},
		{name: "instructions is a number", muts: []mut{{timeProto + "\n      \"serverInfo\": {\n        \"name\": \"mcp-time\",\n        \"version\": \"1.30.0\"\n      },\n      \"instructions\": null", timeProto + "\n      \"serverInfo\": {\n        \"name\": \"mcp-time\",\n        \"version\": \"1.30.0\"\n      },\n      \"instructions\": 7"}},
			server: "time", item: "instructions", message: "want a string or null"},
		{name: "serverInfo is an array", muts: []mut{{"\"serverInfo\": {\n        \"name\": \"mcp-time\",\n        \"version\": \"1.30.0\"\n      }", `"serverInfo": ["mcp-time"]`}},
			server: "time", item: "serverInfo", message: "want an object"},
		{name: "tools is an object", muts: []mut{{"\"prompts\": [],\n      \"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\"", "\"prompts\": {},\n      \"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\""}},
			server: "time", item: "prompts", message: "want an array of items, got an object"},
		{name: "lockfileVersion 4", muts: []mut{{`"lockfileVersion": 1,`, `"lockfileVersion": 4,`}},
			item: "lockfileVersion", message: `unsupported version "4"`},
		{name: "lockfileVersion 1.0", muts: []mut{{`"lockfileVersion": 1,`, `"lockfileVersion": 1.0,`}},
			item: "lockfileVersion", message: `unsupported version "1.0"`},
		{name: "lockfileVersion string", muts: []mut{{`"lockfileVersion": 1,`, `"lockfileVersion": "1",`}},
			item: "lockfileVersion", message: "unsupported version"},
		{name: "lockfileVersion missing", muts: []mut{{`"lockfileVersion": 1,`, ``}},
			item: "top level", message: "missing lockfileVersion"},
		{name: "version 1 with supportedVersions", muts: []mut{{timeProto, timeProto + ` "supportedVersions": ["2025-11-25"],`}},
			server: "time", item: "supportedVersions", message: "needs lockfileVersion 2"},
		{name: "version 2 supportedVersions without protocolVersion", muts: []mut{{`"lockfileVersion": 1,`, `"lockfileVersion": 2,`}, {timeProto, timeProto + ` "supportedVersions": ["2026-07-28"],`}},
			server: "time", item: "supportedVersions", message: `does not list protocolVersion "2025-11-25"`},
		{name: "missing key", muts: []mut{{"\"prompts\": [],\n      \"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\"", "\"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\""}},
			server: "time", message: `missing key "prompts"`},
		{name: "generator not a string", muts: []mut{{`"generator": "mcpsum 0.1.0",`, `"generator": 1,`}},
			item: "generator", message: "want a string"},
		{name: "duplicate tool", muts: []mut{{"\"tools\": [\n        {\n          \"name\": \"convert_time\",", "\"tools\": [\n        {\"name\": \"get_current_time\"},\n        {\n          \"name\": \"convert_time\","}},
			server: "time", item: `tool "get_current_time"`, message: "listed twice"},
		{name: "duplicate key in item", muts: []mut{{timeDesc, timeDesc + ` "description": "Convert time",`}},
			server: "time", item: `tool "convert_time"`, message: `duplicate key "description" at top level`},
		{name: "duplicate key deep in item", muts: []mut{{`"description": "Time to convert in 24-hour format (HH:MM)"`, `"description": "Time to convert in 24-hour format (HH:MM)", "type": "integer"`}},
			server: "time", item: `tool "convert_time"`, message: `duplicate key "type" at inputSchema.properties.time`},
		{name: "duplicate key in serverInfo", muts: []mut{{`"name": "mcp-time",`, `"name": "mcp-time", "name": "other",`}},
			server: "time", item: "serverInfo", message: `duplicate key "name"`},
		{name: "duplicate key in entry", muts: []mut{{timeProto, timeProto + ` "protocolVersion": "2025-06-18",`}},
			server: "time", message: `duplicate key "protocolVersion"`},
		{name: "duplicate top-level key", muts: []mut{{`"generator": "mcpsum 0.1.0",`, `"generator": "mcpsum 0.1.0", "generator": "x",`}},
			item: "top level", message: `duplicate key "generator"`},
		{name: "duplicate server", muts: []mut{{"\"servers\": {\n", "\"servers\": {\n \"time\": {},\n"}},
			item: "servers", message: `duplicate key "time"`},
		{name: "duplicate key in digests map", muts: []mut{{digestCT, digestCT + ", " + digestCT}},
			server: "time", item: "digests.tools", message: `duplicate key "convert_time"`},
		{name: "duplicate key in policy", muts: []mut{{allowTime, allowTime + `, "allow": ["a.com:443"]`}},
			server: "time", item: "policy.sandbox.network", message: `duplicate key "allow"`},
		{name: "unknown digest algorithm", muts: []mut{{digestCT, strings.Replace(digestCT, "sha256:", "sha512:", 1)}},
			server: "time", item: `digests.tools["convert_time"]`, message: `unknown algorithm "sha512"`},
		{name: "digest without prefix", muts: []mut{{`"surface": "sha256:fb3d`, `"surface": "fb3d`}},
			server: "time", item: "digests.surface", message: "no algorithm prefix"},
		{name: "digest upper-case hex", muts: []mut{{"2087112606139ff1", "2087112606139FF1"}},
			server: "time", item: `digests.tools["convert_time"]`, message: "malformed hex"},
		{name: "digest too short", muts: []mut{{"5825615531\"", "58256155\""}},
			server: "time", item: `digests.tools["convert_time"]`, message: "want 64 hex digits"},
		{name: "digest for an unknown tool", muts: []mut{{digestCT, digestCT + `, "delete_time": "sha256:2087112606139ff11543d6ae15c2b207575b144885ac46cc3c7bac5825615531"`}},
			server: "time", item: "digests.tools", message: `tool "delete_time", which is not locked`},
		{name: "tool without digest", muts: []mut{{digestCT + ",", ""}},
			server: "time", item: `tool "convert_time"`, message: "has no digest in digests.tools"},
		{name: "taint name not a locked tool", muts: []mut{{timeSink, "\"sinks\": [\"convert_time\", \"convert_times\"]"}},
			server: "time", item: "policy.taint.sinks[1]", message: `"convert_times" is not a locked tool`},
		{name: "taint name listed twice", muts: []mut{{timeSink, "\"sinks\": [\"convert_time\", \"convert_time\"]"}},
			server: "time", item: "policy.taint.sinks[1]", message: "listed twice"},
		{name: "taint wildcard misspelt", muts: []mut{{`"resources:*"`, `"resource:*"`}},
			server: "time", item: "policy.taint.sources[0]", message: `"resource:*" is not a locked tool`},
		{name: "sandbox relative path", muts: []mut{{`"~/notes"`, `"notes"`}},
			server: "time", item: "policy.sandbox.filesystem.read[0]", message: "must be absolute"},
		{name: "sandbox dotdot path", muts: []mut{{`"${TMP}/work"`, `"${TMP}/../etc"`}},
			server: "time", item: "policy.sandbox.filesystem.write[0]", message: "must not contain a .. component"},
		{name: "sandbox ~user path", muts: []mut{{`"~/notes"`, `"~root/notes"`}},
			server: "time", item: "policy.sandbox.filesystem.read[0]", message: "must be absolute"},
		{name: "network entry without port", muts: []mut{{allowTime, `"allow": ["api.github.com"]`}},
			server: "time", item: "policy.sandbox.network.allow[0]", message: "want host:port"},
		{name: "network port 0", muts: []mut{{`"[::1]:9000"`, `"[::1]:0"`}},
			server: "fetch", item: "policy.sandbox.network.allow[3]", message: "port must be"},
		{name: "network unbracketed IPv6", muts: []mut{{`"[::1]:9000"`, `"::1:9000"`}},
			server: "fetch", item: "policy.sandbox.network.allow[3]", message: "in brackets"},
		{name: "network bad wildcard", muts: []mut{{`"*.wikipedia.org:443"`, `"*wikipedia.org:443"`}},
			server: "fetch", item: "policy.sandbox.network.allow[0]", message: "not a valid host name"},
		{name: "item not an object", muts: []mut{{"\"prompts\": [],\n      \"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\"", "\"prompts\": [\"hello\"],\n      \"resources\": [],\n      \"resourceTemplates\": [],\n      \"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\""}},
			server: "time", item: "prompt #0", message: "not a JSON object"},
		{name: "item key not a string", muts: []mut{{`"name": "convert_time",`, `"name": 7,`}},
			server: "time", item: "tool #0", message: `item field "name": want a string, got a number`},
		{name: "number that changes when canonicalised", muts: []mut{{`"default": 5000,`, `"default": 9007199254740993,`}},
			server: "fetch", item: `tool "fetch"`, message: `number "9007199254740993" would change to 9007199254740992 when canonicalised`},
		{name: "number out of range", muts: []mut{{`"listChanged": false
        }
      },
      "tools": [
        {
          "name": "convert_time"`, `"listChanged": 1e400
        }
      },
      "tools": [
        {
          "name": "convert_time"`}},
			server: "time", item: "capabilities", message: "out of range"},
		{name: "invalid server name", muts: []mut{{"\"time\": {\n      \"command\"", "\"time now\": {\n      \"command\""}},
			item: "servers", message: `server name "time now"`},
		{name: "lone surrogate in a command", muts: []mut{{`"mcp-server-time==2026.8.18"`, `"mcp-server-time==2026.8.18\ud800"`}},
			server: "time", item: "command", message: `element 1: lone UTF-16 surrogate \ud800`},
		{name: "invalid JSON", muts: []mut{{`"lockfileVersion": 1,`, `"lockfileVersion": 1,,`}},
			message: "not valid JSON at line 2"},
		{name: "invalid UTF-8", muts: []mut{{`"generator": "mcpsum 0.1.0",`, "\"generator\": \"mcpsum \xff\","}},
			message: "not valid UTF-8 (line 3"},
		{name: "top level not an object", raw: `[]`, item: "top level", message: "want an object, got an array"},
		{name: "servers missing", raw: `{"lockfileVersion": 1}`, item: "top level", message: "missing servers"},
		{name: "servers not an object", raw: `{"lockfileVersion": 1, "servers": []}`, item: "servers", message: "want an object"},
	}
	base := string(testdata(t, "lockfiles/valid.lock"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.raw
			if data == "" {
				data = base
				for _, m := range tt.muts {
					data = replaceOnce(t, data, m.old, m.new)
				}
			}
			_, err := Parse("mcp.lock", []byte(data))
			if err == nil {
				t.Fatal("Parse accepted a malformed file")
			}
			fe := asFormat(t, err)
			if fe.File != "mcp.lock" || fe.Server != tt.server || !strings.Contains(fe.Item, tt.item) {
				t.Errorf("got file %q server %q item %q; want mcp.lock, %q, %q", fe.File, fe.Server, fe.Item, tt.server, tt.item)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.message) || !strings.HasPrefix(msg, "lockfile mcp.lock") {
				t.Errorf("message %q lacks %q", msg, tt.message)
			}
			if tt.server != "" && !strings.Contains(msg, `server "`+tt.server+`"`) {
				t.Errorf("message %q does not name server %q", msg, tt.server)
			}
		})
	}
}

// TestParseAccepts covers variants the format allows.
func TestParseAccepts(t *testing.T) {
	base := string(testdata(t, "lockfiles/valid.lock"))
	tests := []struct{ name, old, new string }{
		{"version 2 without modern entries", `"lockfileVersion": 1,`, `"lockfileVersion": 2,`},
		{"no generator", `"generator": "mcpsum 0.1.0",`, ``},
		{"both wildcards and a tool", `"resources:*"`, `"resources:*", "prompts:*", "get_current_time"`},
		{"empty policy", "\"policy\": {\n        \"taint\": {\n          \"sources\": [\n            \"resources:*\"\n          ],\n          \"sinks\": [\n            \"convert_time\"\n          ]\n        },", "\"policy\": {\n        \"taint\": {},"},
		{"paths ~/, ${TMP}/ and /", `"~/notes"`, `"~/", "${TMP}/", "/", "/home/u/.config/x.y"`},
		{"hosts", `"[::1]:9000"`, `"[::1]:9000", "localhost:8080", "a-b.example.co.uk:65535", "*.svc.internal:1", "[2001:db8::1]:443"`},
		{"items in another order", "\"tools\": [\n        {\n          \"name\": \"convert_time\",", "\"tools\": [\n        {\n          \"name\": \"convert_time\","},
		{"sandbox without sub-sections", "\"sandbox\": {\n          \"filesystem\": {\n            \"read\": [\n              \"~/notes\"\n            ],\n            \"write\": [\n              \"${TMP}/work\"\n            ]\n          },\n          \"network\": {\n            \"allow\": []\n          }\n        }", `"sandbox": {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := replaceOnce(t, base, tt.old, tt.new)
			f, err := Parse("mcp.lock", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if sb := f.Servers["time"].Policy.Sandbox; sb != nil && sb.Network.Allow == nil {
				t.Error("Parse returned a nil network.allow (must fail closed as [])")
			}
			out, err := Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse("again", out); err != nil {
				t.Fatalf("re-parse of Marshal output: %v", err)
			}
		})
	}
}

func TestParseTestdataLockfiles(t *testing.T) {
	tests := []struct {
		file      string
		canonical bool
		version   int
		servers   map[string]string // name -> era
	}{
		{"valid.lock", true, 1, map[string]string{"fetch": EraLegacy, "time": EraLegacy}},
		{"modern.lock", true, 2, map[string]string{"acme": EraModern, "time": EraLegacy}},
		{"seed.lock", false, 1, map[string]string{"time": EraLegacy}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data := testdata(t, "lockfiles/"+tt.file)
			f := mustParse(t, tt.file, data)
			if f.Version != tt.version || len(f.Servers) != len(tt.servers) {
				t.Fatalf("version %d, %d servers", f.Version, len(f.Servers))
			}
			for name, era := range tt.servers {
				if s := f.Servers[name]; s == nil || s.Era() != era {
					t.Fatalf("server %q missing or wrong era", name)
				}
			}
			out, err := Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if tt.canonical && !bytes.Equal(out, data) {
				t.Errorf("Marshal(Parse(%s)) is not byte-identical:\n%s", tt.file, out)
			}
			f2 := mustParse(t, "out", out)
			out2, err := Marshal(f2)
			if err != nil || !bytes.Equal(out, out2) {
				t.Errorf("parse -> marshal -> parse -> marshal is not stable (err %v)", err)
			}
		})
	}
}

// TestSeedExample checks the seed's example, verbatim with real digests:
// items out of order and abridged ("…" keys) are accepted and sorted.
func TestSeedExample(t *testing.T) {
	f := mustParse(t, "seed.lock", testdata(t, "lockfiles/seed.lock"))
	s := f.Servers["time"]
	if f.Generator != "mcpsum 0.1.0" || s.Command[1] != "mcp-server-time==2026.8.18" || s.Instructions != nil {
		t.Fatalf("unexpected content: %+v", s)
	}
	var keys []string
	for _, it := range s.Tools {
		k, _ := ItemKey(KindTool, it)
		keys = append(keys, k)
	}
	if strings.Join(keys, ",") != "convert_time,get_current_time" {
		t.Errorf("tools not sorted by name: %v", keys)
	}
	if got := string(s.Find(KindTool, "convert_time")); got != `{"name":"convert_time","description":"Convert time between timezones","…":"…"}` {
		t.Errorf("raw item not kept as sent (compacted): %s", got)
	}
}

func TestMarshalLayout(t *testing.T) {
	f := mustParse(t, "modern.lock", testdata(t, "lockfiles/modern.lock"))
	f.Version = 1 // ignored: a modern entry forces version 2
	f.Generator = "mcpsum <dev> & co"
	s := f.Servers["acme"]
	// An item with its own key order and escapes, as a server might send it.
	raw := `{"uriTemplate":"x:\/\/{id}","name":"caf\u00e9 <b>","z":1,"a":[]}`
	s.ResourceTemplates = append(s.ResourceTemplates, []byte(raw))
	if err := NewServer(s); err != nil {
		t.Fatal(err)
	}
	out, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"{\n  \"lockfileVersion\": 2,\n  \"generator\": \"mcpsum <dev> & co\",\n  \"servers\": {\n    \"acme\": {\n      \"command\": [",
		"        {\n          \"uriTemplate\": \"x:\\/\\/{id}\",\n          \"name\": \"caf\\u00e9 <b>\",\n          \"z\": 1,\n          \"a\": []\n        }",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	order := []string{`"command"`, `"envPassthrough"`, `"protocolVersion"`, `"supportedVersions"`, `"serverInfo"`,
		`"instructions"`, `"capabilities"`, `"tools"`, `"prompts"`, `"resources"`, `"resourceTemplates"`,
		`"policy"`, `"digests"`, `"surface"`}
	last := -1
	for _, k := range order {
		i := strings.Index(text, k)
		if i <= last {
			t.Errorf("key %s out of order", k)
		}
		last = i
	}
	if !strings.HasSuffix(text, "}\n") || strings.HasSuffix(text, "\n\n") {
		t.Error("want exactly one trailing newline")
	}
	// Marshal is deterministic.
	for i := 0; i < 3; i++ {
		again, _ := Marshal(f)
		if !bytes.Equal(again, out) {
			t.Fatal("Marshal is not deterministic")
		}
	}
	// Without the modern entry, version 1 is written.
	delete(f.Servers, "acme")
	out, _ = Marshal(f)
	if !strings.HasPrefix(string(out), "{\n  \"lockfileVersion\": 1,") {
		t.Errorf("want version 1 without modern entries:\n%.60s", out)
	}
}
