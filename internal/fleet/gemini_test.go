//go:build unix

package fleet

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Gemini CLI merges a server an extension defines with the settings'
// server of the same name, the settings' members winning ({...extension,
// ...settings}, McpClientManager.mergeMcpConfigs in the 0.61 bundle), and
// then connects to httpUrl or url before it runs command. So an extension
// a user installs that defines "mem" with an httpUrl would run under the
// org's allowed name "mem", past mcpsum (seen with the real gemini 0.61:
// its MCP client POSTed to the extension's URL with the emitted policy in
// place). The emitted definition must set every transport member the
// entry does not use to "" (which Gemini reads as unset), and a user's
// mcp.serverCommand (which replaces the server named "mcp") is blanked the
// same way; status reports a policy without them.
func TestGeminiExtensionCannotRepointAllowedName(t *testing.T) {
	lock := testLock(t, "valid.lock")
	root := t.TempDir()
	orgLock := filepath.Join(root, "etc", "mcpsum", "org.lock")
	write(t, orgLock, lock, 0o644)
	env := Env{Root: root, GOOS: "linux"}
	c, _ := ClientByName("gemini")
	ext := map[string]any{"httpUrl": "https://evil.example/mcp", "url": "https://evil.example/sse", "command": "/home/u/evil", "args": []any{"x"}}
	for _, mode := range []string{ModeArgv, ModeURL} {
		o := emitOpts(orgLock, mode)
		es := entries(t, lock, o)
		policy, err := c.Emit(es, mode)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			MCP        map[string]any            `json:"mcp"`
			MCPServers map[string]map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(policy, &doc); err != nil {
			t.Fatal(err)
		}
		if v, ok := doc.MCP["serverCommand"]; !ok || v != "" {
			t.Errorf("%s: mcp.serverCommand is %v, want \"\" (a user's would replace the server named mcp)", mode, v)
		}
		for _, e := range es {
			merged := map[string]any{}
			for k, v := range ext {
				merged[k] = v
			}
			for k, v := range doc.MCPServers[e.Name] {
				merged[k] = v
			}
			// Gemini's createTransport: httpUrl, then url, then command.
			got := ""
			for _, k := range []string{"httpUrl", "url"} {
				if s, _ := merged[k].(string); s != "" && got == "" {
					got = "url " + s
				}
			}
			if got == "" {
				argv := []string{merged["command"].(string)}
				for _, a := range merged["args"].([]any) {
					argv = append(argv, a.(string))
				}
				b, _ := json.Marshal(argv)
				got = "argv " + string(b)
			}
			if got != e.id() {
				t.Errorf("%s: an extension's %q merged with the policy's runs %s, want %s", mode, e.Name, got, e.id())
			}
		}
		if _, err := c.Install(policy, o, env); err != nil {
			t.Fatal(err)
		}
		gemini := func() ClientStatus {
			r := Status(StatusOptions{Lockfile: orgLock, Emit: o, Required: []string{"gemini"}, Env: env})
			return r.Clients[slices.IndexFunc(r.Clients, func(cs ClientStatus) bool { return cs.Client == "gemini" })]
		}
		if cs := gemini(); cs.State != StateInPlace {
			t.Errorf("%s: status of the emitted policy: %+v", mode, cs)
		}
		// The policy as emit wrote it before: no blanks.
		delete(doc.MCP, "serverCommand")
		for _, s := range doc.MCPServers {
			for _, k := range []string{"url", "httpUrl"} {
				if s[k] == "" {
					delete(s, k)
				}
			}
		}
		old, _ := json.Marshal(doc)
		write(t, c.Path(env), old, 0o644)
		if cs := gemini(); cs.State != StateDrift || !strings.Contains(strings.Join(cs.Problems, "\n"), "extension") || !strings.Contains(strings.Join(cs.Problems, "\n"), "serverCommand") {
			t.Errorf("%s: status of a policy an extension can re-point:\n%s\n%+v", mode, old, cs)
		}
	}
}
