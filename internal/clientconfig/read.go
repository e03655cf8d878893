package clientconfig

import (
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonc"
	"github.com/mcpsum/mcpsum/internal/safeio"
)

// Status says what the importer can do with an entry.
type Status int

const (
	// Lockable: a stdio server with a literal command; it can be locked.
	Lockable Status = iota + 1
	// Remote: a url/serverUrl/httpUrl entry (Streamable HTTP); Refused
	// says why when mcpsum cannot lock it.
	Remote
	// Interpolated: its command or args use a variable the client expands
	// (${input:…}, ${workspaceFolder}, ${env:…}, ${VAR}); not guessed at.
	Interpolated
	// Wrapped: already `mcpsum proxy`.
	Wrapped
	// Extension: an extension of the client supplies the command (Zed's
	// extension-provided context servers); nothing to lock in the file.
	Extension
	// Invalid: missing command, wrong types, or a duplicated name.
	Invalid
)

func (s Status) String() string {
	switch s {
	case Lockable:
		return "lockable"
	case Remote:
		return "remote"
	case Interpolated:
		return "interpolated"
	case Wrapped:
		return "wrapped"
	case Extension:
		return "from an extension"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// Entry is one server of a client config.
type Entry struct {
	Name string
	// Scope is "" for a root without wildcards, else the key the wildcard
	// matched (the project folder of a per-project entry in ~/.claude.json).
	Scope  string
	Status Status
	Note   string   // why the entry is not Lockable (or a remark)
	Argv   []string // command + args
	// EnvNames are the names of the entry's environment variables (never
	// their values: those are not read into anything).
	EnvNames []string
	// EnvFile and Cwd are the entry's envFile and cwd fields, as written.
	EnvFile, Cwd string
	// EnvFileNames are the variable names EnvFile defines (ReadEnvFiles).
	EnvFileNames []string
	// Disabled: the entry is switched off in the client ("disabled": true,
	// or Codex's enabled = false); the client does not start it.
	Disabled bool
	Line     int // of the entry's key
	// Endpoint is a Remote entry's server.
	Endpoint Endpoint
	// Proxy, for a Wrapped entry: what `mcpsum proxy` is started with.
	Proxy ProxyArgs

	at spans // where the entry's fields are in the file (JSON configs)
}

// Endpoint is the server a Remote entry names.
type Endpoint struct {
	Host string // scheme://host of the URL only (a query may hold a token)
	// For a Remote entry mcpsum can lock: the URL as written, each header's
	// name → the variable its value comes from, and each such variable →
	// the text the client expands for it (the header's value as written:
	// "${env:TOKEN}"), which the rewritten entry passes to mcpsum proxy.
	URL       string
	Headers   map[string]string
	HeaderEnv map[string]string
	// Refused is why mcpsum cannot lock it ("" if it can).
	Refused string
}

// ProxyArgs are the --lockfile and --name a Wrapped entry starts
// `mcpsum proxy` with.
type ProxyArgs struct{ Lockfile, Name string }

// spans are the nodes of a JSON config entry that a rewrite or an undo
// edits.
type spans struct {
	holder  *jsonc.Value // the object holding the command and args fields
	command *jsonc.Value
	args    *jsonc.Value // nil when the entry has no args field
	cmdKey  string       // name of the command field in holder
	argsKey string
	value   *jsonc.Value // the entry's whole value (an undo of a remote entry puts its text back)
	remote  *remoteNodes // for a lockable Remote entry of a JSON config
}

// Config is one parsed client file.
type Config struct {
	Client   *Client
	Location Location
	Path     string
	Src      []byte // the bytes read
	Empty    bool   // the file holds nothing but white space
	// Shared: the file sits where a client keeps a project's config
	// (.mcp.json, .vscode/mcp.json, …), this project's or another's: a
	// cloned repository can ship it, so its commands are the repository's
	// choice, not the user's, and it is never written outside its project.
	Shared  bool
	Entries []Entry
}

// MaxConfig caps a client config read: ~/.claude.json keeps per-project
// history and grows to megabytes, but a FIFO, /dev/zero or a runaway file a
// cloned repository names as its config must not hang or fill memory.
const MaxConfig = 256 << 20

// ReadFile reads a client config file: a regular file (FIFOs and devices are
// refused, not waited on or read forever), at most MaxConfig bytes.
func ReadFile(path string) ([]byte, error) {
	return safeio.ReadRegular(path, "client config", MaxConfig)
}

// Read reads and parses the file at path as client c's config.
func Read(path string, c *Client, l Location) (*Config, error) {
	src, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, c, l)
}

// Parse parses src (read from path) as client c's config.
func Parse(path string, src []byte, c *Client, l Location) (*Config, error) {
	cfg := &Config{Client: c, Location: l, Path: path, Src: src, Shared: l.Project()}
	if len(strings.TrimSpace(strings.TrimPrefix(string(src), "\ufeff"))) == 0 {
		cfg.Empty = true
		return cfg, nil
	}
	if c.Format == TOML {
		entries, err := parseTOML(src, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cfg.Entries = entries
		return cfg, nil
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) && c.Format == JSON {
			return nil, hint.Errorf("fix it, or name another client with --client", "%s: %w (not valid %s for %s)", path, err, c.Format, c.Title)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if root.Kind != jsonc.Object {
		return nil, fmt.Errorf("%s: the top level is %s, want an object", path, root.Kind)
	}
	lines := jsonc.NewLines(src)
	for _, r := range c.Roots {
		for _, h := range walkRoot(root, r, "") {
			if h.obj.Kind != jsonc.Object {
				return nil, fmt.Errorf("%s: %s is %s, want an object of servers", path, strings.Join(r, "."), h.obj.Kind)
			}
			cfg.Entries = append(cfg.Entries, readServers(lines, h.obj, h.scope, c)...)
		}
	}
	return cfg, nil
}

type rootHit struct {
	obj   *jsonc.Value
	scope string
}

// walkRoot follows path from v; "*" visits every member.
func walkRoot(v *jsonc.Value, path []string, scope string) []rootHit {
	if len(path) == 0 {
		return []rootHit{{v, scope}}
	}
	if v.Kind != jsonc.Object {
		return nil
	}
	var out []rootHit
	for _, m := range v.Members {
		if path[0] == "*" || m.Key == path[0] {
			s := scope
			if path[0] == "*" {
				s = m.Key
			}
			out = append(out, walkRoot(m.Value, path[1:], s)...)
		}
	}
	return out
}

func readServers(lines *jsonc.Lines, servers *jsonc.Value, scope string, c *Client) []Entry {
	count := map[string]int{}
	for _, m := range servers.Members {
		count[m.Key]++
	}
	var out []Entry
	for _, m := range servers.Members {
		e := Entry{Name: m.Key, Scope: scope, Line: lines.Line(m.KeyStart)}
		if count[m.Key] > 1 {
			e.Status = Invalid
			e.Note = fmt.Sprintf("the name is defined %d times in this object (the client would use only the last); remove the others and import again", count[m.Key])
		} else {
			readEntry(&e, m.Value, c)
		}
		out = append(out, e)
	}
	return out
}

func readEntry(e *Entry, v *jsonc.Value, c *Client) {
	invalid := func(format string, args ...any) {
		e.Status, e.Note = Invalid, fmt.Sprintf(format, args...)
	}
	if v.Kind != jsonc.Object {
		invalid("the entry is %s, want an object with a command", v.Kind)
		return
	}
	e.at.value = v
	if c.Transport != "" {
		if t, n := v.Get(c.Transport); t != nil {
			if n > 1 || t.Kind != jsonc.Object {
				invalid("%q must appear once, as an object", c.Transport)
				return
			}
			v = t // the nested form {"transport": {"type": …, "command": …}}
		}
	}
	for _, k := range c.URLKeys {
		if u, _ := v.Get(k); u != nil {
			readRemote(e, v, k, c)
			e.Disabled = disabled(e.at.value, v)
			return
		}
	}
	if t, _ := v.Get("type"); t != nil && t.Kind == jsonc.String && t.Str != "stdio" && t.Str != "local" {
		e.Status = Remote
		e.Endpoint.Refused = fmt.Sprintf("type %q without a URL: nothing to connect to", t.Str)
		return
	}
	if k := c.Extension[0]; k != "" {
		if src, _ := v.Get(k); src != nil && src.Kind == jsonc.String && src.Str == c.Extension[1] {
			e.Status = Extension
			e.Note = fmt.Sprintf("an extension of %s supplies its command (%q: %q), which the file does not show; mcpsum cannot lock it, so this version leaves it as it is", c.Title, k, c.Extension[1])
			return
		}
	}
	holder := v
	cmd, n := v.Get(c.Command)
	e.at.cmdKey, e.at.argsKey = c.Command, c.Args
	if n > 1 {
		invalid("%q appears %d times in the entry; remove the others", c.Command, n)
		return
	}
	if cmd != nil && cmd.Kind == jsonc.Object && c.CommandPath != "" {
		holder = cmd // the nested form {"command": {"path": …, "args": …}}
		cmd, n = holder.Get(c.CommandPath)
		e.at.cmdKey = c.CommandPath
		if n > 1 {
			invalid("%q appears %d times in the command object; remove the others", c.CommandPath, n)
			return
		}
	}
	if cmd == nil {
		invalid("no %q: nothing to run (fix the entry in the client config, then import again)", e.at.cmdKey)
		return
	}
	if cmd.Kind != jsonc.String || cmd.Str == "" {
		invalid("%q is %s, want a non-empty string", e.at.cmdKey, describe(cmd))
		return
	}
	e.at.holder, e.at.command = holder, cmd
	e.Argv = []string{cmd.Str}
	args, n := holder.Get(c.Args)
	if n > 1 {
		invalid("%q appears %d times in the entry; remove the others", c.Args, n)
		return
	}
	if args != nil {
		if args.Kind != jsonc.Array {
			invalid("%q is %s, want an array of strings", c.Args, args.Kind)
			return
		}
		for i, a := range args.Elems {
			if a.Kind != jsonc.String {
				invalid("%q[%d] is %s, want a string", c.Args, i, a.Kind)
				return
			}
			e.Argv = append(e.Argv, a.Str)
		}
		e.at.args = args
	}
	for _, k := range c.EnvKeys {
		for _, obj := range []*jsonc.Value{v, holder} {
			env, _ := obj.Get(k)
			if env == nil {
				continue
			}
			if env.Kind != jsonc.Object {
				invalid("%q is %s, want an object of variables", k, env.Kind)
				return
			}
			for _, m := range env.Members {
				e.EnvNames = append(e.EnvNames, m.Key) // the name only; m.Value is never read
			}
			if obj == holder {
				break
			}
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"envFile", &e.EnvFile}, {"cwd", &e.Cwd}} {
		if x, _ := holder.Get(f.key); x != nil && x.Kind == jsonc.String {
			*f.dst = x.Str
		} else if x, _ := v.Get(f.key); x != nil && x.Kind == jsonc.String {
			*f.dst = x.Str
		}
	}
	e.Disabled = disabled(v, holder)
	slices.Sort(e.EnvNames)
	e.EnvNames = slices.Compact(e.EnvNames)
	classify(e, c)
}

// disabled reports whether any of objs says "disabled": true.
func disabled(objs ...*jsonc.Value) bool {
	for _, obj := range objs {
		if d, _ := obj.Get("disabled"); d != nil && d.Kind == jsonc.Bool && d.Bool {
			return true
		}
	}
	return false
}
