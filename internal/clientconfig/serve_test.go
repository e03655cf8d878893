package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
)

// Each client that can carry mcpsum serve's token gets an entry in its own
// format: the URL under the key it reads as Streamable HTTP, the header's
// variable in the syntax it expands; the rewrite replaces exactly the
// chosen entries' values (the rest of the file byte for byte), and the
// result reads back as a remote entry at that URL.
func TestRewriteServePerClient(t *testing.T) {
	want := map[string]string{
		"claude-code": `{"type": "http", "url": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${MCPSUM_SERVE_TOKEN}"}}`,
		"gemini":      `{"httpUrl": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${MCPSUM_SERVE_TOKEN}"}}`,
		"cursor":      `{"url": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${env:MCPSUM_SERVE_TOKEN}"}}`,
		"vscode":      `{"type": "http", "url": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${env:MCPSUM_SERVE_TOKEN}"}}`,
		"windsurf":    `{"serverUrl": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${env:MCPSUM_SERVE_TOKEN}"}}`,
		"devin":       `{"serverUrl": "http://127.0.0.1:8808/servers/N/mcp", "headers": {"Authorization": "Bearer ${env:MCPSUM_SERVE_TOKEN}"}}`,
	}
	done := map[string]bool{}
	for _, f := range fixtures {
		w, ok := want[f.client]
		if !ok {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			cfg := readFixture(t, f)
			urls := map[Key]string{}
			for _, e := range cfg.Entries {
				if e.Status == Lockable {
					urls[e.Key()] = ServeURL("http://127.0.0.1:8808", e.Name)
				}
			}
			if len(urls) == 0 {
				t.Skip("no lockable entry")
			}
			out, changes, err := cfg.RewriteServe(urls)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != len(urls) {
				t.Fatalf("%d changes for %d entries", len(changes), len(urls))
			}
			again, err := Parse(cfg.Path, out, cfg.Client, cfg.Location)
			if err != nil {
				t.Fatal(err)
			}
			rest := string(cfg.Src)
			for i, e := range again.Entries {
				before := cfg.Entries[i]
				u, changed := urls[before.Key()]
				if !changed {
					if e.EntryText(out) != before.EntryText(cfg.Src) {
						t.Errorf("%s changed", e.Name)
					}
					continue
				}
				if got, exp := e.EntryText(out), strings.Replace(w, "/servers/N/", "/servers/"+strings.TrimSuffix(strings.TrimPrefix(u, "http://127.0.0.1:8808/servers/"), "/mcp")+"/", 1); got != exp {
					t.Errorf("%s: got %s\nwant %s", e.Name, got, exp)
				}
				if e.Status != Remote {
					t.Errorf("%s reads back as %s, want a remote entry", e.Name, e.Status)
				}
				rest = strings.Replace(rest, before.EntryText(cfg.Src), "", 1)
			}
			outRest := string(out)
			for k := range urls {
				txt, _ := cfg.Client.ServeEntry(urls[k])
				outRest = strings.Replace(outRest, txt, "", 1)
			}
			if outRest != rest {
				t.Errorf("bytes outside the rewritten entries changed:\n%s\nwant\n%s", outRest, rest)
			}
			done[f.client] = true
		})
	}
	for c := range want {
		if !done[c] {
			t.Errorf("no fixture of %s was rewritten", c)
		}
	}
}

// A client whose config cannot send the header from a variable is refused
// by name, with the next step; Codex gets a TOML table naming the variable.
func TestServeRefusedClients(t *testing.T) {
	for _, n := range []string{"claude-desktop", "zed", "cline", "lmstudio"} {
		c, _ := Lookup(n)
		err := c.CanServe()
		if err == nil || !strings.Contains(err.Error(), c.Title+"'s config cannot send mcpsum serve's bearer token") || !strings.Contains(strings.Join(hint.Of(err), " "), "without --serve-url") {
			t.Errorf("%s: %v", n, err)
		}
		if _, err := c.ServeEntry("http://127.0.0.1:1/servers/a/mcp"); err == nil {
			t.Errorf("%s: ServeEntry gave an entry", n)
		}
	}
	if s := ServeSnippet("mcp_servers", "a b", "http://127.0.0.1:1/servers/a%20b/mcp"); s != "[mcp_servers.\"a b\"]\nurl = \"http://127.0.0.1:1/servers/a%20b/mcp\"\nbearer_token_env_var = \"MCPSUM_SERVE_TOKEN\"\n" {
		t.Errorf("codex snippet:\n%s", s)
	}
	for _, bad := range []string{"http://example.com:8808", "http://127.0.0.1:8808/servers", "http://127.0.0.1:8808/?x=1", "ftp://127.0.0.1"} {
		if _, err := ServeBase(bad); err == nil {
			t.Errorf("ServeBase(%s) accepted", bad)
		}
	}
	if b, err := ServeBase("https://serve.example.com/"); err != nil || b != "https://serve.example.com" {
		t.Errorf("ServeBase: %s, %v", b, err)
	}
}

// After the client rewrote its file (a key of its own added), undo puts
// back the entries mcpsum pointed at serve, whole, keeping the client's
// change; an entry the user changed since is left as it is.
func TestUndoServeEntries(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, ".claude.json")
	old := "{\"mcpServers\": {\n  \"a\": {\"command\": \"node\", \"args\": [\"a.js\"], \"env\": {\"K\": \"v\"}},\n  \"b\": {\"command\": \"node\", \"args\": [\"b.js\"]}\n}}\n"
	writeFile(t, p, old, 0o600)
	c, _ := Lookup("claude-code")
	cfg, err := Parse(p, []byte(old), c, Location{Base: Home})
	if err != nil {
		t.Fatal(err)
	}
	urls := map[Key]string{}
	var changes []EntryChange
	for _, e := range cfg.Entries {
		urls[e.Key()] = ServeURL("http://127.0.0.1:8808", e.Name)
		txt, _ := c.ServeEntry(urls[e.Key()])
		changes = append(changes, e.ServeChange(cfg.Src, txt))
	}
	data, _, err := cfg.RewriteServe(urls)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	if _, err := Write(p, []byte(old), data, WriteOptions{Now: now, StateDir: state, Client: "claude-code", Changes: changes}); err != nil {
		t.Fatal(err)
	}
	// The client adds a key; the user edits b.
	edited := strings.Replace(string(data), "{\"mcpServers\"", "{\"numStartups\": 3, \"mcpServers\"", 1)
	edited = strings.Replace(edited, "/servers/b/mcp", "/servers/b2/mcp", 1)
	writeFile(t, p, edited, 0o600)
	res, err := Undo(p, UndoOptions{StateDir: state, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Whole || len(res.Restored) != 1 || res.Restored[0].Name != "a" || len(res.Left) != 1 || res.Left[0].Name != "b" {
		t.Fatalf("undo: %+v", res)
	}
	got, _ := os.ReadFile(p)
	want := strings.Replace(edited, `{"type": "http", "url": "http://127.0.0.1:8808/servers/a/mcp", "headers": {"Authorization": "Bearer ${MCPSUM_SERVE_TOKEN}"}}`, `{"command": "node", "args": ["a.js"], "env": {"K": "v"}}`, 1)
	if string(got) != want {
		t.Errorf("after undo:\n%s\nwant\n%s", got, want)
	}
}
