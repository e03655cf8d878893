package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Each client's own syntax for a header value taken from a variable maps
// to that variable; everything else (a literal, text around a variable, a
// syntax the client does not expand there, a URL with a query, the older
// SSE transport) is refused with a reason that names the header and the
// next step, and never the value.
func TestRemoteHeaderSyntax(t *testing.T) {
	for _, tc := range []struct {
		client, entry string
		want          string // "Header=VAR" of a lockable entry, or a piece of the refusal
	}{
		{"claude-code", `{"type": "http", "url": "https://a.example/mcp", "headers": {"Authorization": "${TOKEN}"}}`, "Authorization=TOKEN"},
		{"claude-code", `{"type": "http", "url": "https://a.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}`, `header "Authorization" mixes text with a variable`},
		{"claude-code", `{"type": "http", "url": "https://a.example/mcp", "headers": {"X-Key": "sk-live-SECRET"}}`, `header "X-Key" has a literal value`},
		{"claude-code", `{"type": "sse", "url": "https://a.example/sse"}`, "older HTTP+SSE transport"},
		{"claude-code", `{"url": "https://a.example/mcp?api_key=SECRET"}`, "its URL has a query"},
		{"claude-code", `{"url": "https://${HOST}/mcp"}`, "its URL uses a variable"},
		{"claude-code", `{"url": "http://example.com/mcp"}`, "plain http to example.com"},
		{"cursor", `{"url": "https://a.example/mcp", "headers": {"Authorization": "${env:CURSOR_TOKEN}"}}`, "Authorization=CURSOR_TOKEN"},
		{"cursor", `{"url": "https://a.example/mcp", "headers": {"Authorization": "${TOKEN}"}}`, "${env:AUTHORIZATION_VALUE}"},
		{"vscode", `{"type": "http", "url": "https://a.example/mcp", "headers": {"Authorization": "${input:gh-token}"}}`, "Authorization=MCPSUM_INPUT_GH_TOKEN"},
		{"vscode", `{"type": "http", "url": "https://a.example/mcp", "headers": {"X-A": "${env:A}", "X-B": "${env:B}"}}`, "X-A=A X-B=B"},
		{"windsurf", `{"serverUrl": "https://a.example/mcp", "headers": {"Authorization": "${env:WS}"}}`, "Authorization=WS"},
		{"gemini", `{"httpUrl": "https://a.example/mcp", "headers": {"Authorization": "$GEMINI_TOKEN"}}`, "Authorization=GEMINI_TOKEN"},
		{"gemini", `{"url": "https://a.example/sse"}`, `give that URL as "httpUrl"`},
		{"cline", `{"type": "streamableHttp", "url": "https://a.example/mcp"}`, ""},
		{"claude-desktop", `{"url": "https://a.example/mcp", "headers": {"Authorization": "${TOKEN}"}}`, "Claude Desktop does not expand variables in headers, so lock it by hand"},
		{"claude-code", `{"url": "https://a.example/mcp", "command": "node"}`, `both "url" and "command"`},
		{"claude-code", `{"url": "https://a.example/mcp", "headers": {"Host": "${H}"}}`, `header "Host"`},
	} {
		c, _ := Lookup(tc.client)
		root := c.Roots[0][0]
		cfg, err := Parse("x.json", []byte(`{"`+root+`": {"s": `+tc.entry+`}}`), c, Location{Base: Home})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.client, tc.entry, err)
		}
		e := cfg.Entries[0]
		if e.Status != Remote {
			t.Errorf("%s %s: status %s, want remote", tc.client, tc.entry, e.Status)
			continue
		}
		var h []string
		for n, v := range e.Endpoint.Headers {
			h = append(h, n+"="+v)
		}
		slices.Sort(h)
		got := strings.Join(h, " ")
		if e.Endpoint.Refused != "" {
			got = e.Endpoint.Refused
		}
		if tc.want == "" && e.Endpoint.Refused != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.client, tc.entry, got, tc.want)
		}
		if strings.Contains(e.Endpoint.Refused, "SECRET") {
			t.Errorf("%s: the refusal shows the value: %s", tc.client, e.Endpoint.Refused)
		}
	}
}

// Codex reads env_http_headers as header → variable; literal http_headers
// and bearer_token_env_var (Codex adds "Bearer ") are refused.
func TestRemoteCodex(t *testing.T) {
	c, _ := Lookup("codex")
	src := `
[mcp_servers.ok]
url = "https://a.example/mcp"
env_http_headers = { Authorization = "LINEAR_AUTH", X-Team = "TEAM" }

[mcp_servers.literal]
url = "https://a.example/mcp"
http_headers = { X-Key = "SECRET" }

[mcp_servers.bearer]
url = "https://a.example/mcp"
bearer_token_env_var = "TOKEN"

[mcp_servers.twice]
url = "https://a.example/mcp"
env_http_headers = { X-Key = "A", x-key = "B" }
`
	cfg, err := Parse("config.toml", []byte(src), c, Location{Base: Home})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range cfg.Entries {
		got[e.Name] = e
	}
	if e := got["ok"]; e.Endpoint.Refused != "" || e.Endpoint.Headers["Authorization"] != "LINEAR_AUTH" || e.Endpoint.Headers["X-Team"] != "TEAM" {
		t.Errorf("ok: %+v", e)
	}
	if e := got["literal"]; !strings.Contains(e.Endpoint.Refused, "env_http_headers = { X-Key = ") || strings.Contains(e.Endpoint.Refused, "SECRET") {
		t.Errorf("literal: %q", e.Endpoint.Refused)
	}
	if e := got["bearer"]; !strings.Contains(e.Endpoint.Refused, "bearer_token_env_var") {
		t.Errorf("bearer: %q", e.Endpoint.Refused)
	}
	if e := got["twice"]; !strings.Contains(e.Endpoint.Refused, "is given twice") {
		t.Errorf("twice: %q", e.Endpoint.Refused)
	}
	snip := TOMLSnippet("mcp_servers", got["ok"], []string{"/bin/mcpsum", "proxy", "--name", "ok"})
	if !strings.Contains(snip, `env_vars = ["LINEAR_AUTH", "TEAM"]`) {
		t.Errorf("the snippet does not pass the header variables through:\n%s", snip)
	}
}

// A remote entry is rewritten to run mcpsum proxy over stdio: the URL
// becomes command and args, the type becomes stdio, the headers become the
// env that hands their variables (in the client's own syntax) to the proxy;
// every other byte stays. An undo of that one entry, after the client
// rewrote the file, puts the remote entry back byte for byte.
func TestRewriteAndUndoRemote(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	remote := `{
      "type": "http", // Streamable HTTP
      "url": "https://mcp.example.com/mcp",
      "headers": {"Authorization": "${env:LINEAR_TOKEN}"},
      "dev": {"watch": "x"}
    }`
	orig := "{\n  \"servers\": {\n    \"linear\": " + remote + ",\n    \"local\": {\"command\": \"node\", \"args\": [\"l.js\"]}\n  }\n}\n"
	writeFile(t, p, orig, 0o600)
	c, _ := Lookup("vscode")
	cfg, err := Parse(p, []byte(orig), c, Location{Base: Home})
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{"/bin/mcpsum", "proxy", "--lockfile", "/p/mcp.lock", "--name", "linear"}
	data, changes, err := cfg.Rewrite(map[Key][]string{{Name: "linear"}: argv})
	if err != nil {
		t.Fatal(err)
	}
	wantEntry := `{
      "type": "stdio", // Streamable HTTP
      "command": "/bin/mcpsum", "args": ["proxy", "--lockfile", "/p/mcp.lock", "--name", "linear"],
      "env": {"LINEAR_TOKEN": "${env:LINEAR_TOKEN}"},
      "dev": {"watch": "x"}
    }`
	if want := strings.Replace(orig, remote, wantEntry, 1); string(data) != want {
		t.Fatalf("rewrite:\n%s\nwant:\n%s", data, want)
	}
	// The change shown is every change made: the type too.
	if len(changes) != 1 || !strings.Contains(changes[0].Old, `"type": "http", "url": "https://mcp.example.com/mcp"`) ||
		!strings.HasPrefix(changes[0].New, `"type": "stdio", "command": "/bin/mcpsum"`) || !strings.Contains(changes[0].New, `"env": {"LINEAR_TOKEN"`) {
		t.Errorf("change shown: %+v", changes)
	}
	o := WriteOptions{Now: time.Now(), StateDir: state, Client: "vscode", Changes: []EntryChange{cfg.Entries[0].Change(cfg.Src, argv)}}
	if _, err := Write(p, []byte(orig), data, o); err != nil {
		t.Fatal(err)
	}
	clientEdit := strings.Replace(string(data), `"servers"`, `"inputs": [], "servers"`, 1)
	writeFile(t, p, clientEdit, 0o600)
	res, err := Undo(p, UndoOptions{StateDir: state, Now: time.Now(), Name: "linear"})
	if err != nil || res.Whole || len(res.Restored) != 1 {
		t.Fatalf("undo: %+v %v", res, err)
	}
	want := strings.Replace(orig, `"servers"`, `"inputs": [], "servers"`, 1)
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Fatalf("after undo:\n%s\nwant:\n%s", b, want)
	}
}
