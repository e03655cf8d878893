package clientconfig

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/jsonc"
	"github.com/mcpsum/mcpsum/internal/netrule"
)

// ServeTokenEnv is the environment variable a client configured for
// mcpsum serve takes the bearer token from: the client expands it into the
// Authorization header, so the token never sits in the config file.
const ServeTokenEnv = "MCPSUM_SERVE_TOKEN"

// ServeBase checks mcpsum serve's URL as import --serve-url takes it:
// https (or http to this machine), a host and port and nothing after them
// but an optional "/". It returns SCHEME://HOST[:PORT].
func ServeBase(raw string) (string, error) {
	u, err := netrule.ParseServerURL(raw)
	if err != nil {
		return "", fmt.Errorf("--serve-url %s: %v", quoteName(raw), err)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || strings.HasSuffix(raw, "?") || strings.ContainsAny(raw, "$*{}") {
		return "", fmt.Errorf("--serve-url %s: want only http://127.0.0.1:PORT or https://HOST[:PORT]; mcpsum serve answers each server at /servers/NAME/mcp", quoteName(raw))
	}
	return u.Scheme + "://" + u.Host, nil
}

// ServeURL is where mcpsum serve at base answers the locked server name.
func ServeURL(base, name string) string {
	return base + "/servers/" + url.PathEscape(name) + "/mcp"
}

// serveShape is how a client's config names a Streamable HTTP server with
// a header whose value comes from an environment variable ("" members:
// the client cannot).
type serveShape struct {
	typ, urlKey, ref string
}

// serveShapes are the clients whose config can carry serve's token header
// from the environment, each in its own syntax (their documentation):
// Claude Code and Gemini CLI expand ${VAR} in a server's headers, Cursor,
// VS Code, Windsurf and Devin ${env:VAR}. Gemini reads "url" as the older
// HTTP+SSE transport, so its entry takes "httpUrl". The table is built
// when asked for: a package-level map literal is code every mcpsum process
// (a proxy too) runs before main.
func serveShapes() map[string]serveShape {
	return map[string]serveShape{
		"claude-code": {typ: "http", urlKey: "url", ref: "${" + ServeTokenEnv + "}"},
		"gemini":      {urlKey: "httpUrl", ref: "${" + ServeTokenEnv + "}"},
		"cursor":      {urlKey: "url", ref: "${env:" + ServeTokenEnv + "}"},
		"vscode":      {typ: "http", urlKey: "url", ref: "${env:" + ServeTokenEnv + "}"},
		"windsurf":    {urlKey: "serverUrl", ref: "${env:" + ServeTokenEnv + "}"},
		"devin":       {urlKey: "serverUrl", ref: "${env:" + ServeTokenEnv + "}"},
	}
}

// CanServe says why the client's config cannot point at mcpsum serve with
// its bearer token (nil when it can): its file has no header whose value
// comes from an environment variable, so the token would have to be
// written into it. Codex takes the token's variable by name
// (bearer_token_env_var), in the snippet import prints.
func (c *Client) CanServe() error {
	if _, ok := serveShapes()[c.Name]; ok || c.Name == "codex" {
		return nil
	}
	var can []string
	for n := range serveShapes() {
		can = append(can, n)
	}
	can = append(can, "codex")
	slices.Sort(can)
	return hint.Errorf("import it without --serve-url: its servers then run through mcpsum proxy",
		"--serve-url: %s's config cannot send mcpsum serve's bearer token from an environment variable (it would have to hold the token itself), so import does not point it at serve; clients it can point at serve: %s",
		c.Title, strings.Join(can, ", "))
}

// ServeEntry is the JSON text of an entry pointing client c at the serve
// URL u, the token header taken from ServeTokenEnv.
func (c *Client) ServeEntry(u string) (string, error) {
	if err := c.CanServe(); err != nil {
		return "", err
	}
	s := serveShapes()[c.Name]
	var m []string
	if s.typ != "" {
		m = append(m, `"type": `+jsonString(s.typ))
	}
	m = append(m, jsonString(s.urlKey)+": "+jsonString(u),
		`"headers": {"Authorization": `+jsonString("Bearer "+s.ref)+`}`)
	return "{" + strings.Join(m, ", ") + "}", nil
}

// ServeSnippet is Codex's TOML table for server name at the serve URL u:
// Codex sends the variable's value as the bearer token.
func ServeSnippet(root, name, u string) string {
	return fmt.Sprintf("[%s.%s]\nurl = %s\nbearer_token_env_var = %s\n", root, tomlKey(name), tomlString(u), tomlString(ServeTokenEnv))
}

// EntryText is the entry's whole value as it stands in the file ("" when
// the entry is not an object).
func (e *Entry) EntryText(src []byte) string {
	if e.at.value == nil {
		return ""
	}
	return string(src[e.at.value.Start:e.at.value.End])
}

// RewriteServe returns the config's bytes with each entry in urls
// replaced, whole, by an entry pointing the client at that mcpsum serve
// URL (ServeEntry); every other byte stays as it was. The result is parsed
// again: each rewritten entry must read back as the text written, every
// other entry as it was; anything else is an error and nothing is
// returned.
func (cfg *Config) RewriteServe(urls map[Key]string) ([]byte, []Change, error) {
	if !cfg.CanRewrite() {
		return nil, nil, hint.Errorf("paste the snippet it prints instead", "%s: mcpsum does not rewrite %s files", cfg.Path, cfg.Client.Format)
	}
	for k := range urls {
		if !slices.ContainsFunc(cfg.Entries, func(e Entry) bool { return e.Key() == k }) {
			return nil, nil, fmt.Errorf("%s: no server %q to rewrite", cfg.Path, k.Name)
		}
	}
	var edits []jsonc.Edit
	var changes []Change
	texts := map[Key]string{}
	for i := range cfg.Entries {
		e := &cfg.Entries[i]
		u, ok := urls[e.Key()]
		if !ok {
			continue
		}
		if e.at.value == nil {
			return nil, nil, fmt.Errorf("%s: server %q cannot be rewritten (%s)", cfg.Path, e.Name, e.Status)
		}
		text, err := cfg.Client.ServeEntry(u)
		if err != nil {
			return nil, nil, err
		}
		texts[e.Key()] = text
		edits = append(edits, jsonc.Edit{Start: e.at.value.Start, End: e.at.value.End, Text: text})
		changes = append(changes, Change{Name: e.Name, Scope: e.Scope, Line: e.Line, Old: oneLineEntry(cfg.Src, e), New: text})
	}
	out, err := jsonc.Apply(cfg.Src, edits)
	if err != nil {
		return nil, nil, err
	}
	if err := cfg.checkTexts(out, texts); err != nil {
		return nil, nil, fmt.Errorf("%s: internal error, the rewrite did not read back as intended (nothing written): %w", cfg.Path, err)
	}
	return out, changes, nil
}

// checkTexts parses out: the entries in texts must hold exactly that text,
// every other entry the text it had.
func (cfg *Config) checkTexts(out []byte, texts map[Key]string) error {
	again, err := Parse(cfg.Path, out, cfg.Client, cfg.Location)
	if err != nil {
		return err
	}
	if len(again.Entries) != len(cfg.Entries) {
		return fmt.Errorf("%d entries became %d", len(cfg.Entries), len(again.Entries))
	}
	for i := range again.Entries {
		e, before := &again.Entries[i], &cfg.Entries[i]
		want, ok := texts[before.Key()]
		if !ok {
			want = before.EntryText(cfg.Src)
		}
		if e.Key() != before.Key() || e.EntryText(out) != want {
			return fmt.Errorf("server %q reads back changed", before.Name)
		}
	}
	return nil
}

// oneLineEntry shows what starts the entry, for the plan: its command
// line, or its URL. Env and header values are never shown.
func oneLineEntry(src []byte, e *Entry) string {
	if e.at.remote != nil {
		return string(src[e.at.remote.url.KeyStart:e.at.remote.url.Value.End])
	}
	if e.at.command != nil {
		s := jsonString(e.at.cmdKey) + ": " + string(src[e.at.command.Start:e.at.command.End])
		if e.at.args != nil {
			s += ", " + jsonString(e.at.argsKey) + ": " + oneLineJSON(src[e.at.args.Start:e.at.args.End])
		}
		return s
	}
	return e.Status.String()
}

// ServeChange is what a write records of an entry it pointed at mcpsum
// serve: its whole text before and after (an undo puts the first back
// while the entry still holds the second).
func (e *Entry) ServeChange(src []byte, after string) EntryChange {
	return EntryChange{Scope: e.Scope, Name: e.Name, Before: e.Argv, BeforeText: e.EntryText(src), AfterText: after}
}
