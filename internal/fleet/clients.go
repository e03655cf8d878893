package fleet

import (
	"path/filepath"
	"strings"
)

// Client is one MCP client whose own managed policy fleet emit writes. The
// file names, keys and places are the clients' own (docs/fleet.md cites
// where each is documented).
type Client struct {
	Name  string
	Title string
	Modes []string // the modes its policy can express (ModeArgv, ModeURL)
	// places is where the client reads its managed policy, by GOOS (a
	// missing GOOS: only an MDM profile or the registry, no file).
	places places
	// keys are the top-level members (or TOML tables) the policy owns;
	// --install replaces a file holding nothing else.
	keys   []string
	toml   bool
	render func(es []Entry, mode string) []byte
	// check lists how the installed policy (its file's contents; env for
	// the client's other policy files) differs from the one for es.
	check func(data []byte, es []Entry, mode string, env Env) []string
}

// Env is where the clients' system files are: Root is prepended to every
// system path (tests run without writing /etc), GOOS picks the platform,
// Getenv reads the variables a client itself honours for its path.
type Env struct {
	Root   string
	GOOS   string
	Getenv func(string) string
}

// places are paths by GOOS: a table of data, not a map literal (which
// would be code every mcpsum process runs before main).
type places []struct{ goos, path string }

// on is the path for goos ("" when there is none).
func (ps places) on(goos string) string {
	for _, p := range ps {
		if p.goos == goos {
			return p.path
		}
	}
	return ""
}

// claudeCodePlaces is Claude Code's drop-in, by GOOS.
var claudeCodePlaces = places{
	{"linux", "/etc/claude-code/managed-settings.d/mcpsum.json"},
	{"darwin", "/Library/Application Support/ClaudeCode/managed-settings.d/mcpsum.json"},
	{"windows", `C:\Program Files\ClaudeCode\managed-settings.d\mcpsum.json`},
}

// Clients are the clients fleet emit writes policies for.
var Clients = []*Client{
	{
		Name: "claude-code", Title: "Claude Code", Modes: []string{ModeArgv, ModeURL},
		// A drop-in of its own in managed-settings.d (merged after
		// managed-settings.json, in name order), so an organisation's other
		// managed settings stay where they are.
		places: claudeCodePlaces,
		keys:   allowlistKeys, render: renderAllowlist, check: checkClaudeCode,
	},
	{
		Name: "copilot", Title: "GitHub Copilot", Modes: []string{ModeArgv, ModeURL},
		places: places{
			{"linux", "/etc/github-copilot/managed-settings.json"},
			{"darwin", "/Library/Application Support/GitHubCopilot/managed-settings.json"},
		},
		keys: allowlistKeys, render: renderAllowlist, check: checkAllowlistFile,
	},
	{
		Name: "vscode", Title: "Visual Studio Code", Modes: []string{ModeArgv, ModeURL},
		places: places{{"linux", "/etc/vscode/policy.json"}},
		keys:   []string{vscodePolicy}, render: renderVSCode, check: checkVSCode,
	},
	{
		Name: "gemini", Title: "Gemini CLI", Modes: []string{ModeArgv, ModeURL},
		places: places{
			{"linux", "/etc/gemini-cli/settings.json"},
			{"darwin", "/Library/Application Support/GeminiCli/settings.json"},
			{"windows", `C:\ProgramData\gemini-cli\settings.json`},
		},
		keys: []string{"mcp", "mcpServers"}, render: renderGemini, check: checkGemini,
	},
	{
		Name: "codex", Title: "Codex CLI", Modes: []string{ModeArgv, ModeURL},
		places: places{
			{"linux", "/etc/codex/requirements.toml"},
			{"darwin", "/etc/codex/requirements.toml"},
			{"windows", `C:\ProgramData\OpenAI\Codex\requirements.toml`},
		},
		keys: []string{"mcp_servers"}, toml: true, render: renderCodex, check: checkCodex,
	},
	{
		// Claude Desktop reads managed settings from a macOS configuration
		// profile or the Windows registry only, and its managed servers are
		// remote ones: the URL of mcpsum serve.
		Name: "claude-desktop", Title: "Claude Desktop", Modes: []string{ModeURL},
		places: nil,
		keys:   []string{"managedMcpServers", "isLocalDevMcpEnabled", "isDesktopExtensionEnabled"},
		render: renderClaudeDesktop,
	},
}

// ClientNames lists the clients' names.
func ClientNames() []string {
	out := make([]string, len(Clients))
	for i, c := range Clients {
		out[i] = c.Name
	}
	return out
}

// ClientByName finds a client.
func ClientByName(name string) (*Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// Path is where the client reads the policy on env's platform ("" when
// only an MDM profile or the registry can carry it).
func (c *Client) Path(env Env) string {
	if c.Name == "gemini" && env.Getenv != nil {
		// Gemini CLI's own override of its system settings' path.
		if p := env.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
			return p
		}
	}
	return env.at(c.places.on(env.GOOS))
}

// at is the system path p under env.Root.
func (env Env) at(p string) string {
	if p == "" || env.Root == "" {
		return p
	}
	return filepath.Join(env.Root, filepath.FromSlash(strings.TrimPrefix(p, "/")))
}

// Supports reports whether the client's policy can express mode.
func (c *Client) Supports(mode string) bool {
	for _, m := range c.Modes {
		if m == mode {
			return true
		}
	}
	return false
}

// Emit is the client's policy admitting exactly es.
func (c *Client) Emit(es []Entry, mode string) ([]byte, error) {
	if !c.Supports(mode) {
		return nil, usage("%s's managed policy has no %s entries (it takes --mode %s)", c.Title, mode, strings.Join(c.Modes, " or "))
	}
	return c.render(es, mode), nil
}
