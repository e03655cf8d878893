package clientconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonc"
	"github.com/mcpsum/mcpsum/internal/netrule"
)

// Ref is a set of syntaxes a client expands to a variable's value in a
// remote entry's header values (each client's documentation).
type Ref int

const (
	RefBrace    Ref = 1 << iota // ${VAR} (Claude Code, Gemini CLI)
	RefDollar                   // $VAR (Gemini CLI)
	RefEnvColon                 // ${env:VAR} (Cursor, VS Code, Windsurf)
	RefInput                    // ${input:ID}, a value VS Code asks for and keeps
)

// streamable are the type values that name the Streamable HTTP transport.
var streamable = []string{"http", "streamable-http", "streamableHttp", "streamable_http"}

// remoteNodes are where a remote entry's fields sit, for the rewrite.
type remoteNodes struct {
	url, headers *jsonc.Member // headers nil when the entry has none
	typ          *jsonc.Value  // nil when the entry has no type
}

// readRemote reads a remote entry (one with a URL key) of a JSON config.
// An entry mcpsum cannot lock keeps Status Remote with Refused set.
func readRemote(e *Entry, v *jsonc.Value, key string, c *Client) {
	e.Status = Remote
	defer e.dropRefused()
	refuse := func(format string, args ...any) { e.Endpoint.Refused = fmt.Sprintf(format, args...) }
	um, n := lastMember(v, key)
	if n > 1 {
		refuse("%q appears %d times in the entry; remove the others", key, n)
		return
	}
	e.Endpoint.Host = hostOf(um.Value)
	if um.Value.Kind != jsonc.String {
		refuse("%q is %s, want the server's URL", key, describe(um.Value))
		return
	}
	if cmd, _ := v.Get(c.Command); cmd != nil {
		refuse("the entry has both %q and %q, so which server the client runs is unclear: remove one and import again", key, c.Command)
		return
	}
	nodes := &remoteNodes{url: um}
	t, _ := v.Get("type")
	if t != nil {
		nodes.typ = t
	}
	if why := transportProblem(t, key, c); why != "" {
		refuse("%s", why)
		return
	}
	if !checkURL(e, um.Value.Str, c) {
		return
	}
	e.Endpoint.Headers, e.Endpoint.HeaderEnv = map[string]string{}, map[string]string{}
	if hm, n := lastMember(v, "headers"); hm != nil {
		if n > 1 || hm.Value.Kind != jsonc.Object {
			refuse(`"headers" must appear once, as an object of header names and values`)
			return
		}
		nodes.headers = hm
		for _, m := range hm.Value.Members {
			if m.Value.Kind != jsonc.String {
				refuse("header %s is %s, want a string", quoteName(m.Key), m.Value.Kind)
				return
			}
			if !addHeader(e, c, m.Key, m.Value.Str) {
				return
			}
		}
	}
	for _, k := range c.EnvKeys {
		if env, _ := v.Get(k); env != nil && len(e.Endpoint.Headers) > 0 {
			refuse("the entry has both %q and headers; mcpsum passes the header variables to mcpsum proxy in %q: move what %q holds elsewhere, or lock it by hand (mcpsum lock --url URL --header NAME=ENVVAR)", k, k, k)
			return
		}
	}
	e.at.remote = nodes
}

// dropRefused forgets what a refused remote entry was read as: only
// Refused says anything of it.
func (e *Entry) dropRefused() {
	if e.Endpoint.Refused != "" {
		e.Endpoint.URL, e.Endpoint.Headers, e.Endpoint.HeaderEnv, e.at.remote = "", nil, nil, nil
	}
}

// transportProblem says why an entry's transport is not Streamable HTTP
// ("" when it is).
func transportProblem(t *jsonc.Value, key string, c *Client) string {
	if t != nil {
		if t.Kind == jsonc.String && slices.Contains(streamable, t.Str) {
			return ""
		}
		if t.Kind == jsonc.String && t.Str == "sse" {
			return `type "sse" is the older HTTP+SSE transport, which mcpsum does not speak (it locks Streamable HTTP servers); if the server also serves Streamable HTTP, set type to "http" with that URL and import again`
		}
		return fmt.Sprintf("type %s is not a transport mcpsum locks (Streamable HTTP: %q)", quoteName(t.Str), "http")
	}
	if slices.Contains(c.SSEURLKeys, key) {
		return fmt.Sprintf("%s reads %q as the older HTTP+SSE transport, which mcpsum does not speak (it locks Streamable HTTP servers); if the server also serves Streamable HTTP, give that URL as %s and import again", c.Title, key, c.StreamableHint)
	}
	return ""
}

// checkURL checks a remote entry's URL as a lock entry would hold it; the
// URL is never put in a message (its path or query may carry a token).
func checkURL(e *Entry, raw string, c *Client) bool {
	if v := interpolation(raw, c.DollarVars); v != "" || strings.Contains(raw, "${") {
		e.Endpoint.Refused = fmt.Sprintf("its URL uses a variable %s expands when it connects; mcpsum pins the exact URL and does not guess its value: lock it by hand (mcpsum lock --name NAME --url URL), then set the entry to mcpsum proxy --name NAME", c.Title)
		return false
	}
	u, err := netrule.ParseServerURL(raw)
	if err != nil {
		e.Endpoint.Refused = fmt.Sprintf("its URL %v", err)
		return false
	}
	if u.RawQuery != "" || strings.HasSuffix(raw, "?") {
		e.Endpoint.Refused = "its URL has a query (?…), which may carry a credential, and mcp.lock pins the exact URL (a file you commit): pass a credential in a header from an environment variable instead; if the query holds no secret, lock it by hand: mcpsum lock --name NAME --url URL, then set the entry's command and args to mcpsum proxy --name NAME"
		return false
	}
	e.Endpoint.URL = raw
	return true
}

// addHeader maps one header of a remote entry to the variable its value
// comes from. A literal value, or one that mixes text with a variable, is
// refused: mcpsum never copies a header's value, and sends each header's
// value from one variable, whole.
func addHeader(e *Entry, c *Client, name, value string) bool {
	if err := netrule.HeaderName(name); err != nil {
		e.Endpoint.Refused = fmt.Sprintf("header %s: %v", quoteName(name), err)
		return false
	}
	if _, twice := netrule.HeaderTwin(maps.Keys(e.Endpoint.Headers), name); twice {
		e.Endpoint.Refused = fmt.Sprintf("header %s is given twice", quoteName(name))
		return false
	}
	v, ok := headerVar(value, c.HeaderRefs)
	if !ok {
		e.Endpoint.Refused = headerProblem(c, name, value)
		return false
	}
	e.Endpoint.Headers[name] = v
	e.Endpoint.HeaderEnv[v] = value
	return true
}

// headerVar returns the variable a header's whole value names: VAR of
// ${VAR}, $VAR or ${env:VAR}, or for ${input:ID} the variable mcpsum
// passes that input in (MCPSUM_INPUT_ID), as the client's syntaxes allow.
func headerVar(s string, refs Ref) (string, bool) {
	switch {
	case refs&RefEnvColon != 0 && strings.HasPrefix(s, "${env:") && strings.HasSuffix(s, "}"):
		return validVar(s[len("${env:") : len(s)-1])
	case refs&RefInput != 0 && strings.HasPrefix(s, "${input:") && strings.HasSuffix(s, "}"):
		id := s[len("${input:") : len(s)-1]
		if id == "" || strings.ContainsAny(id, "${}") {
			return "", false
		}
		b := []byte("MCPSUM_INPUT_" + strings.ToUpper(id))
		for i, ch := range b {
			if !(ch == '_' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9') {
				b[i] = '_'
			}
		}
		return validVar(string(b))
	case refs&RefBrace != 0 && strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}"):
		return validVar(s[2 : len(s)-1])
	case refs&RefDollar != 0 && strings.HasPrefix(s, "$"):
		return validVar(s[1:])
	}
	return "", false
}

func validVar(v string) (string, bool) {
	if v == "" || len(v) > 128 || v[0] >= '0' && v[0] <= '9' {
		return "", false
	}
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if !(ch == '_' || ch|0x20 >= 'a' && ch|0x20 <= 'z' || ch >= '0' && ch <= '9') {
			return "", false
		}
	}
	return v, true
}

// headerProblem says why a header's value cannot be locked and what to
// do, without ever showing the value (it may be a secret).
func headerProblem(c *Client, name, value string) string {
	suggest := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_VALUE"
	if _, ok := validVar(suggest); !ok {
		suggest = "HEADER_VALUE"
	}
	ref := c.refExample(suggest)
	how := fmt.Sprintf("put the header's whole value in an environment variable (export %s=…), write %s as the header's value in the config, and import again", suggest, ref)
	if ref == "" {
		how = fmt.Sprintf("%s does not expand variables in headers, so lock it by hand: export %s=… (the header's whole value), run mcpsum lock --name NAME --url URL --header %s=%s, then set the entry's command and args to mcpsum proxy --name NAME", c.Title, suggest, name, suggest)
	}
	if interpolation(value, true) != "" || strings.Contains(value, "${") || strings.Contains(value, "{env:") {
		return fmt.Sprintf("header %s mixes text with a variable, or uses a syntax %s does not expand there; mcpsum sends a header's value from one variable, whole: %s", quoteName(name), c.Title, how)
	}
	return fmt.Sprintf("header %s has a literal value in the config, which mcpsum never copies into mcp.lock or the rewritten config (it may be a secret): %s", quoteName(name), how)
}

// refExample is how the client's config names variable v in a header
// ("" when it expands none there).
func (c *Client) refExample(v string) string {
	switch {
	case c.HeaderRefs&RefEnvColon != 0:
		return "${env:" + v + "}"
	case c.HeaderRefs&RefBrace != 0:
		return "${" + v + "}"
	}
	return ""
}

func quoteName(s string) string { return jsonString(s) }

// lastMember is the last member named key of v and how many there are.
func lastMember(v *jsonc.Value, key string) (*jsonc.Member, int) {
	var last *jsonc.Member
	n := 0
	for i := range v.Members {
		if v.Members[i].Key == key {
			last, n = &v.Members[i], n+1
		}
	}
	return last, n
}

// remoteEdits turn a remote entry into one that runs argv over stdio: the
// URL member becomes the command and args, a type becomes "stdio", and the
// headers member becomes the env that hands the header variables to argv
// (each with the text the client expanded for the header). Returns the
// edits and the change's old and new text.
func (e *Entry) remoteEdits(src []byte, c *Client, argv []string) ([]jsonc.Edit, string, string) {
	r := e.at.remote
	run := jsonString(c.Command) + ": " + jsonString(argv[0]) + ", " + jsonString(c.Args) + ": " + arrayLike(src, nil, argv[1:])
	edits := []jsonc.Edit{{Start: r.url.KeyStart, End: r.url.Value.End, Text: run}}
	old, now := string(src[r.url.KeyStart:r.url.Value.End]), run
	if r.typ != nil {
		edits = append(edits, jsonc.Edit{Start: r.typ.Start, End: r.typ.End, Text: `"stdio"`})
		old, now = `"type": `+string(src[r.typ.Start:r.typ.End])+", "+old, `"type": "stdio", `+now
	}
	if r.headers != nil {
		var env []string
		for _, h := range r.headers.Value.Members {
			v, _ := headerVar(h.Value.Str, c.HeaderRefs)
			env = append(env, jsonString(v)+": "+string(src[h.Value.Start:h.Value.End]))
		}
		text := jsonString(c.EnvKeys[0]) + ": {" + strings.Join(env, ", ") + "}"
		edits = append(edits, jsonc.Edit{Start: r.headers.KeyStart, End: r.headers.Value.End, Text: text})
		old += ", " + string(src[r.headers.KeyStart:r.headers.KeyEnd]) + ": " + oneLineJSON(src[r.headers.Value.Start:r.headers.Value.End])
		now += ", " + text
	}
	return edits, old, now
}
