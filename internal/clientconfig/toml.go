package clientconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// parseTOML reads Codex's [mcp_servers.NAME] tables. Each field is decoded
// on its own (toml.Primitive), so a wrong type makes that one entry invalid
// and env values are never decoded at all: only their names are taken.
func parseTOML(src []byte, c *Client) ([]Entry, error) {
	var doc map[string]toml.Primitive
	md, err := toml.Decode(string(src), &doc)
	if err != nil {
		return nil, err
	}
	root := c.Roots[0][0]
	prim, ok := doc[root]
	if !ok {
		return nil, nil
	}
	var servers map[string]map[string]toml.Primitive
	if err := md.PrimitiveDecode(prim, &servers); err != nil {
		return nil, fmt.Errorf("[%s]: %w", root, err)
	}
	var names []string
	for _, k := range md.Keys() { // file order
		if len(k) == 2 && k[0] == root && !slices.Contains(names, k[1]) {
			names = append(names, k[1])
		}
	}
	for n := range servers { // inline tables do not show up in Keys as tables
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var out []Entry
	for _, n := range names {
		fields, ok := servers[n]
		e := Entry{Name: n, Line: tomlLine(src, root, n)}
		if !ok {
			e.Status, e.Note = Invalid, "the entry is not a table"
			out = append(out, e)
			continue
		}
		readTOMLEntry(&e, md, fields, c)
		out = append(out, e)
	}
	return out, nil
}

func readTOMLEntry(e *Entry, md toml.MetaData, f map[string]toml.Primitive, c *Client) {
	invalid := func(format string, args ...any) { e.Status, e.Note = Invalid, fmt.Sprintf(format, args...) }
	for _, k := range c.URLKeys {
		if p, ok := f[k]; ok {
			var u string
			if md.PrimitiveDecode(p, &u) != nil {
				invalid("%q is not a string", k)
				return
			}
			e.Status, e.Endpoint.Host = Remote, hostString(u)
			readTOMLRemote(e, md, f, u, c)
			return
		}
	}
	p, ok := f[c.Command]
	if !ok {
		invalid("no %q: nothing to run (fix the entry in the client config, then import again)", c.Command)
		return
	}
	var cmd string
	if md.PrimitiveDecode(p, &cmd) != nil || cmd == "" {
		invalid("%q must be a non-empty string", c.Command)
		return
	}
	e.Argv = []string{cmd}
	if p, ok := f[c.Args]; ok {
		var args []string
		if err := md.PrimitiveDecode(p, &args); err != nil {
			invalid("%q must be an array of strings", c.Args)
			return
		}
		e.Argv = append(e.Argv, args...)
	}
	for _, k := range c.EnvKeys {
		if p, ok := f[k]; ok {
			var env map[string]toml.Primitive // values stay undecoded
			if err := md.PrimitiveDecode(p, &env); err != nil {
				invalid("%q must be a table of variables", k)
				return
			}
			for name := range env {
				e.EnvNames = append(e.EnvNames, name)
			}
		}
	}
	for _, k := range c.EnvNameLists {
		if p, ok := f[k]; ok {
			var names []string
			if err := md.PrimitiveDecode(p, &names); err != nil {
				invalid("%q must be an array of variable names", k)
				return
			}
			e.EnvNames = append(e.EnvNames, names...)
		}
	}
	if p, ok := f["enabled"]; ok {
		var on bool
		if md.PrimitiveDecode(p, &on) == nil && !on {
			e.Disabled = true
		}
	}
	slices.Sort(e.EnvNames)
	e.EnvNames = slices.Compact(e.EnvNames)
	classify(e, c)
}

// tomlLine finds the line of [root.name] (0 when it is defined inline).
func tomlLine(src []byte, root, name string) int {
	heads := []string{"[" + root + "." + name + "]", "[" + root + `."` + name + `"]`, "[" + root + ".'" + name + "']"}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, len(src)+1)
	for line := 1; sc.Scan(); line++ {
		t := strings.ReplaceAll(strings.TrimSpace(sc.Text()), " ", "")
		for _, h := range heads {
			if strings.HasPrefix(t, h) {
				return line
			}
		}
	}
	return 0
}

// readTOMLRemote reads a Codex remote entry: its url, and the headers
// env_http_headers maps to variables. Literal http_headers values and
// bearer_token_env_var (a token Codex prefixes with "Bearer ") are refused:
// mcpsum sends each header's value from one variable, whole, and never
// copies a value.
func readTOMLRemote(e *Entry, md toml.MetaData, f map[string]toml.Primitive, u string, c *Client) {
	defer e.dropRefused()
	if !checkURL(e, u, c) {
		return
	}
	e.Endpoint.Headers, e.Endpoint.HeaderEnv = map[string]string{}, map[string]string{}
	if _, ok := f["bearer_token_env_var"]; ok {
		e.Endpoint.Refused = `bearer_token_env_var: Codex sends "Bearer " and the variable's value, and mcpsum sends a header's value from one variable, whole: export AUTHORIZATION_VALUE="Bearer …", replace the line with env_http_headers = { Authorization = "AUTHORIZATION_VALUE" }, and import again`
		return
	}
	if p, ok := f["http_headers"]; ok {
		var h map[string]toml.Primitive // values stay undecoded
		if md.PrimitiveDecode(p, &h) == nil {
			for name := range h {
				v := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)) + "_VALUE"
				e.Endpoint.Refused = fmt.Sprintf("http_headers holds header %s's value literally, which mcpsum never copies into mcp.lock (it may be a secret): export %s=… (the header's whole value), move the header to env_http_headers = { %s = %s }, and import again", quoteName(name), v, tomlKey(name), tomlString(v))
				return
			}
		}
	}
	if p, ok := f["env_http_headers"]; ok {
		var h map[string]string
		if err := md.PrimitiveDecode(p, &h); err != nil {
			e.Endpoint.Refused = "env_http_headers must be a table of header names and variable names"
			return
		}
		names := make([]string, 0, len(h))
		for n := range h {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if _, ok := validVar(h[n]); !ok {
				e.Endpoint.Refused = fmt.Sprintf("env_http_headers: %s is not a variable name", quoteName(h[n]))
				return
			}
			if !addHeader(e, &Client{Title: c.Title, HeaderRefs: RefBrace}, n, "${"+h[n]+"}") {
				return
			}
		}
	}
}

// TOMLSnippet is the text to put in place of the lines that start the
// server e (command and args; a remote one's url and header lines) of
// [mcp_servers.NAME] in a Codex config: argv, and for a remote entry the
// header variables passed through to it.
func TOMLSnippet(root string, e Entry, argv []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s.%s]\n", root, tomlKey(e.Name))
	fmt.Fprintf(&b, "command = %s\n", tomlString(argv[0]))
	b.WriteString("args = [")
	for i, a := range argv[1:] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tomlString(a))
	}
	b.WriteString("]\n")
	if vars := sortedKeys(e.Endpoint.HeaderEnv); len(vars) > 0 {
		b.WriteString("env_vars = [")
		for i, v := range vars {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tomlString(v))
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TOMLKey is k as a TOML key: bare when it can be, else quoted.
func TOMLKey(k string) string { return tomlKey(k) }

// TOMLString is s as a TOML basic string.
func TOMLString(s string) string { return tomlString(s) }

func tomlKey(k string) string {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z') {
			return tomlString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// tomlString is a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
