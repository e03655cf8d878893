package fleet

import (
	"fmt"
	"strings"

	"github.com/mcpsum/mcpsum/internal/clientconfig"
)

// allowlistKeys are Claude Code's and Copilot's managed-settings members:
// the allowlist, and the switch that makes it the only one (users' own
// settings cannot add to it).
var allowlistKeys = []string{"allowManagedMcpServersOnly", "allowedMcpServers"}

// vscodePolicy is VS Code's enterprise policy for chat.mcp.allowedServers.
const vscodePolicy = "ChatAllowedMcpServers"

// matcher is one allowlist entry of Claude Code, Copilot and VS Code: an
// exact command line, or a URL.
type matcher struct {
	ServerCommand []string `json:"serverCommand,omitempty"`
	ServerURL     string   `json:"serverUrl,omitempty"`
}

func matchers(es []Entry) []matcher {
	out := make([]matcher, len(es))
	for i, e := range es {
		out[i] = matcher{ServerCommand: e.Argv, ServerURL: e.URL}
	}
	return out
}

func renderAllowlist(es []Entry, _ string) []byte {
	return indentJSON(struct {
		Only    bool      `json:"allowManagedMcpServersOnly"`
		Allowed []matcher `json:"allowedMcpServers"`
	}{true, matchers(es)})
}

func renderVSCode(es []Entry, _ string) []byte {
	// A policy's value is a string; a structured one is JSON in it.
	return indentJSON(map[string]string{vscodePolicy: compactJSON(matchers(es))})
}

// geminiServer is one server of Gemini CLI's mcpServers. The transport
// members the entry does not use are "" (Gemini reads that as unset), not
// left out: Gemini merges an extension's server of the same name under
// the settings' one ({...extension, ...settings}) and connects to httpUrl
// or url before it runs command, so a member left out is one an extension
// could fill with its own server's URL.
type geminiServer struct {
	Command *string           `json:"command,omitempty"`
	Args    *[]string         `json:"args,omitempty"`
	HTTPURL string            `json:"httpUrl"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"` // url mode: serve's token, as Gemini expands it
}

// ServeTokenEnv is the environment variable a Gemini CLI policy of url
// mode takes mcpsum serve's bearer token from: Gemini expands ${NAME} in
// its settings' strings, so the token never sits in the world-readable
// system file.
const ServeTokenEnv = "MCPSUM_SERVE_TOKEN"

// renderGemini is Gemini CLI's system settings: the org lock's servers
// defined there (a user's server of the same name is overridden), and
// mcp.allowed naming them (every other server is blocked). mcp.serverCommand
// is "" so a user's (which replaces the server named "mcp") is not used.
func renderGemini(es []Entry, _ string) []byte {
	servers := map[string]geminiServer{}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
		s := geminiServer{HTTPURL: e.URL}
		if e.URL != "" {
			s.Headers = map[string]string{"Authorization": "Bearer ${" + ServeTokenEnv + "}"}
		}
		if e.Argv != nil {
			args := e.Argv[1:]
			s.Command, s.Args = &e.Argv[0], &args
		}
		servers[e.Name] = s
	}
	type mcp struct {
		Allowed       []string `json:"allowed"`
		ServerCommand string   `json:"serverCommand"`
	}
	return indentJSON(struct {
		MCP        mcp                     `json:"mcp"`
		MCPServers map[string]geminiServer `json:"mcpServers"`
	}{mcp{Allowed: names}, servers})
}

// renderCodex is Codex's requirements.toml: an mcp_servers allowlist in
// which a server's name and identity (its exact executable and arguments,
// or its URL) must both match.
func renderCodex(es []Entry, _ string) []byte {
	var b strings.Builder
	b.WriteString("# mcpsum fleet emit: Codex enables only these MCP servers, each by name and exact identity.\n")
	for _, e := range es {
		key := "mcp_servers." + clientconfig.TOMLKey(e.Name) + ".identity"
		if e.URL != "" {
			fmt.Fprintf(&b, "\n[%s]\nurl = %s\n", key, clientconfig.TOMLString(e.URL))
			continue
		}
		fmt.Fprintf(&b, "\n[%s.command]\nexecutable = %s\nargs = [\n", key, clientconfig.TOMLString(e.Argv[0]))
		for _, a := range e.Argv[1:] {
			fmt.Fprintf(&b, "  { match = \"exact\", value = %s },\n", clientconfig.TOMLString(a))
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

// renderClaudeDesktop is Claude Desktop's managed keys as a configuration
// profile (.mobileconfig) or the registry carries them: every value a
// string, arrays JSON-encoded. The servers are mcpsum serve's endpoints;
// users may add no local servers or desktop extensions of their own.
func renderClaudeDesktop(es []Entry, _ string) []byte {
	type server struct {
		Name      string `json:"name"`
		Transport string `json:"transport"`
		URL       string `json:"url"`
	}
	list := make([]server, len(es))
	for i, e := range es {
		list[i] = server{e.Name, "http", e.URL}
	}
	inner := compactJSON(list)
	return indentJSON(struct {
		Servers    string `json:"managedMcpServers"`
		LocalDev   string `json:"isLocalDevMcpEnabled"`
		Extensions string `json:"isDesktopExtensionEnabled"`
	}{inner, "false", "false"})
}
