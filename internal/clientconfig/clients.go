package clientconfig

// Format is how a client's file is written.
type Format int

const (
	// JSON files are read with the JSONC parser (a superset) and rewritten
	// surgically.
	JSON Format = iota + 1
	// JSONC allows comments and trailing commas; rewritten surgically.
	JSONC
	// TOML (Codex) is read only: rewriting it without losing comments is not
	// done, the importer prints the snippet to paste instead.
	TOML
)

func (f Format) String() string {
	switch f {
	case JSON:
		return "JSON"
	case JSONC:
		return "JSONC"
	case TOML:
		return "TOML"
	}
	return "unknown"
}

// Base is the directory a path is relative to.
type Base int

const (
	Home          Base = iota + 1 // the user's home directory
	AppData                       // Windows %APPDATA% (Roaming)
	LocalAppData                  // Windows %LOCALAPPDATA%
	XDGConfig                     // $XDG_CONFIG_HOME, else ~/.config
	MacAppSupport                 // ~/Library/Application Support
	Project                       // the project directory (the current directory)
)

// Location is one place a client keeps a config file.
type Location struct {
	OS   string // "linux", "darwin", "windows", or "" for every OS
	Base Base
	// Rel is slash-separated and relative to Base; it may hold one '*'
	// path element (the MSIX package folder of Claude Desktop).
	Rel string
}

// Project reports whether the file belongs to a project (and is usually
// committed), as opposed to the user's own settings.
func (l Location) Project() bool { return l.Base == Project }

// Client is one row of the table.
type Client struct {
	Name   string // what --client takes
	Title  string
	Format Format
	// Roots are key paths to the objects that map server names to entries;
	// "*" matches every key at that level (Claude Code's per-project servers
	// in ~/.claude.json: projects.<dir>.mcpServers).
	Roots     [][]string
	Locations []Location
	// Command and Args are the entry's field names. CommandObject, when
	// set, is the older nested form {"command": {"path": …, "args": …}}
	// (Zed), recognised when the command field holds an object.
	Command, Args string
	CommandPath   string // field of the nested command object holding the program ("path")
	// Transport, when set, is a field that may hold the whole stdio spec
	// (type, command, args, env) one level down (Cline 4.x).
	Transport string
	EnvKeys   []string
	// EnvNameLists are fields that hold a list of variable names to pass
	// through (Codex env_vars).
	EnvNameLists []string
	URLKeys      []string // fields that make an entry remote
	// SSEURLKeys are URL fields the client reads as the older HTTP+SSE
	// transport unless a type says otherwise (Gemini CLI's and Cline's
	// "url"); mcpsum speaks Streamable HTTP only.
	SSEURLKeys []string
	// StreamableHint is how such a client's config names a Streamable
	// HTTP server instead.
	StreamableHint string
	// HeaderRefs are the syntaxes the client expands in a header's value
	// (0: none, the values are literal).
	HeaderRefs Ref
	// WorkspaceVar is the variable the client expands to the project
	// folder in a project config ("" when it has none).
	WorkspaceVar string
	// DollarVars: the client also expands bare $VAR (not only ${VAR}).
	DollarVars bool
	// Extension, when set, is a field and value marking an entry whose
	// command an extension of the client supplies (Zed's
	// "source": "extension"): nothing in the file says what runs.
	Extension [2]string
}

var remoteKeys = []string{"url", "serverUrl", "httpUrl"}

// Clients is the table. Paths follow each client's documentation.
var Clients = []Client{
	{
		Name: "claude-desktop", Title: "Claude Desktop", Format: JSON,
		Roots: [][]string{{"mcpServers"}},
		Locations: []Location{
			{OS: "darwin", Base: MacAppSupport, Rel: "Claude/claude_desktop_config.json"},
			{OS: "windows", Base: AppData, Rel: "Claude/claude_desktop_config.json"},
			// The Microsoft Store (MSIX) build keeps a virtualised copy.
			{OS: "windows", Base: LocalAppData, Rel: "Packages/Claude_*/LocalCache/Roaming/Claude/claude_desktop_config.json"},
			{OS: "linux", Base: XDGConfig, Rel: "Claude/claude_desktop_config.json"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys,
	},
	{
		Name: "claude-code", Title: "Claude Code", Format: JSON,
		Roots: [][]string{{"mcpServers"}, {"projects", "*", "mcpServers"}},
		Locations: []Location{
			{Base: Project, Rel: ".mcp.json"},
			{Base: Home, Rel: ".claude.json"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefBrace,
	},
	{
		Name: "cursor", Title: "Cursor", Format: JSON,
		Roots: [][]string{{"mcpServers"}},
		Locations: []Location{
			{Base: Project, Rel: ".cursor/mcp.json"},
			{Base: Home, Rel: ".cursor/mcp.json"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefEnvColon,
		WorkspaceVar: "${workspaceFolder}",
	},
	{
		Name: "vscode", Title: "VS Code", Format: JSONC,
		Roots: [][]string{{"servers"}},
		Locations: []Location{
			{Base: Project, Rel: ".vscode/mcp.json"},
			{OS: "linux", Base: XDGConfig, Rel: "Code/User/mcp.json"},
			{OS: "darwin", Base: MacAppSupport, Rel: "Code/User/mcp.json"},
			{OS: "windows", Base: AppData, Rel: "Code/User/mcp.json"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefEnvColon | RefInput,
		WorkspaceVar: "${workspaceFolder}",
	},
	{
		Name: "windsurf", Title: "Windsurf", Format: JSON,
		Roots:     [][]string{{"mcpServers"}},
		Locations: []Location{{Base: Home, Rel: ".codeium/windsurf/mcp_config.json"}},
		Command:   "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefEnvColon,
	},
	{
		Name: "devin", Title: "Devin (Windsurf's successor config)", Format: JSON,
		Roots:     [][]string{{"mcpServers"}},
		Locations: []Location{{Base: XDGConfig, Rel: "devin/mcp_config.json"}},
		Command:   "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefEnvColon,
	},
	{
		Name: "gemini", Title: "Gemini CLI", Format: JSONC,
		Roots: [][]string{{"mcpServers"}},
		Locations: []Location{
			{Base: Project, Rel: ".gemini/settings.json"},
			{Base: Home, Rel: ".gemini/settings.json"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys, HeaderRefs: RefBrace | RefDollar, SSEURLKeys: []string{"url"}, StreamableHint: `"httpUrl"`,
		DollarVars: true,
	},
	{
		Name: "zed", Title: "Zed", Format: JSONC,
		Roots: [][]string{{"context_servers"}},
		Locations: []Location{
			{Base: Project, Rel: ".zed/settings.json"},
			{OS: "linux", Base: XDGConfig, Rel: "zed/settings.json"},
			{OS: "darwin", Base: Home, Rel: ".config/zed/settings.json"},
			{OS: "windows", Base: AppData, Rel: "Zed/settings.json"},
		},
		Command: "command", Args: "args", CommandPath: "path", EnvKeys: []string{"env"}, URLKeys: remoteKeys,
		Extension: [2]string{"source", "extension"},
	},
	{
		Name: "codex", Title: "Codex", Format: TOML,
		Roots: [][]string{{"mcp_servers"}},
		Locations: []Location{
			{Base: Project, Rel: ".codex/config.toml"},
			{Base: Home, Rel: ".codex/config.toml"},
		},
		Command: "command", Args: "args", EnvKeys: []string{"env"}, EnvNameLists: []string{"env_vars"}, URLKeys: remoteKeys,
	},
	{
		Name: "cline", Title: "Cline (VS Code extension)", Format: JSON,
		Roots: [][]string{{"mcpServers"}},
		Locations: []Location{
			{OS: "linux", Base: XDGConfig, Rel: "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
			{OS: "darwin", Base: MacAppSupport, Rel: "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
			{OS: "windows", Base: AppData, Rel: "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
			{Base: Home, Rel: ".cline/data/settings/cline_mcp_settings.json"},
		},
		Command: "command", Args: "args", Transport: "transport", EnvKeys: []string{"env"}, URLKeys: remoteKeys, SSEURLKeys: []string{"url"},
		StreamableHint: `"url" with "type": "streamableHttp"`,
	},
	{
		Name: "lmstudio", Title: "LM Studio", Format: JSON,
		Roots:     [][]string{{"mcpServers"}},
		Locations: []Location{{Base: Home, Rel: ".lmstudio/mcp.json"}},
		Command:   "command", Args: "args", EnvKeys: []string{"env"}, URLKeys: remoteKeys,
	},
}

// Lookup returns the client named name.
func Lookup(name string) (*Client, bool) {
	for i := range Clients {
		if Clients[i].Name == name {
			return &Clients[i], true
		}
	}
	return nil, false
}

// Names lists the clients' names, in table order.
func Names() []string {
	out := make([]string, len(Clients))
	for i, c := range Clients {
		out[i] = c.Name
	}
	return out
}
