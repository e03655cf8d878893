package mcphttp

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/netrule"
)

// The headers of a 2026-07-28 request: MCP-Protocol-Version, Mcp-Method,
// Mcp-Name and Mcp-Param-*; and the session id's syntax.

// modern is what a 2026-07-28 request's headers say of it.
type modern struct {
	version string // its _meta's protocol version: the 2026-07-28 one (or later)
	name    []byte // tools/call and prompts/get: params.name; resources/read: params.uri (raw JSON)
}

// modernOf reads a message's 2026-07-28 headers (one pass over its params
// and one over its _meta); ok is false for a message that is not a
// 2026-07-28 request or notification (no such version in its _meta).
func modernOf(m *envelope) (mo modern, ok bool) {
	if m.method == "" || len(m.params) == 0 {
		return mo, false
	}
	f, err := jsonscan.Fields(m.params, "_meta", "name", "uri")
	if err != nil || f[0] == nil {
		return mo, false
	}
	mf, err := jsonscan.Fields(f[0], mcpspec.MetaProtocolVersion)
	if err != nil || mf[0] == nil {
		return mo, false
	}
	v, ok := jsonscan.String(mf[0])
	if !ok || !mcpspec.IsVersion(v) || v < mcpspec.Modern {
		return mo, false
	}
	mo.version = v
	switch m.method {
	case "tools/call", "prompts/get":
		mo.name = f[1]
	case "resources/read":
		mo.name = f[2]
	}
	return mo, true
}

// set puts the 2026-07-28 headers on h: MCP-Protocol-Version, Mcp-Method
// and, for tools/call, prompts/get and resources/read, Mcp-Name.
func (mo *modern) set(h http.Header, method string) {
	h.Set(HeaderProtocolVersion, mo.version)
	h.Set(HeaderMethod, headerValue(method))
	if s, ok := jsonscan.String(mo.name); ok {
		h.Set(HeaderName, headerValue(s))
	}
}

// headerValue encodes a value for an Mcp-* header: as is when it is
// printable ASCII without edge spaces, else "=?base64?…?=" (SEP-2243).
func headerValue(s string) string {
	plain := !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ") && !strings.HasPrefix(s, "\t") && !strings.HasSuffix(s, "\t") &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// validSessionID reports whether s can be an Mcp-Session-Id: visible ASCII
// (0x21–0x7E), at most 1024 bytes.
func validSessionID(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Mcp-Param-* headers (2026-07-28 over HTTP, SEP-2243). A property of a
// tool's inputSchema may carry "x-mcp-header": NAME; a tools/call then
// mirrors that argument's value into the header Mcp-Param-NAME, so that
// gateways can route on it. The proxy takes the annotations from the lock
// (the tools it serves are the locked ones), never from the server.

// paramBinding is one annotated property: its path in the arguments and
// the header's name.
type paramBinding struct {
	path   []string
	header string
}

// maxParamDepth bounds how deep annotations are looked for.
const maxParamDepth = 16

// lockedParamHeaders reads the x-mcp-header annotations of the locked tools,
// by tool name. An annotation that is not a valid header name, or one that
// repeats another (regardless of case), makes no header: go-sdk's client
// drops such a tool, and a header the server would refuse is not sent.
func lockedParamHeaders(tools []json.RawMessage) map[string][]paramBinding {
	out := map[string][]paramBinding{}
	for _, t := range tools {
		f, err := jsonscan.Fields(t, "name", "inputSchema")
		if err != nil {
			continue
		}
		name, ok := jsonscan.String(f[0])
		if !ok || f[1] == nil {
			continue
		}
		var bs []paramBinding
		seen := map[string]bool{}
		collectParamHeaders(f[1], nil, &bs, seen, 0)
		if len(bs) > 0 {
			out[name] = bs
		}
	}
	return out
}

func collectParamHeaders(schema []byte, prefix []string, out *[]paramBinding, seen map[string]bool, depth int) {
	if depth > maxParamDepth {
		return
	}
	f, err := jsonscan.Fields(schema, "properties")
	if err != nil || f[0] == nil || f[0][0] != '{' {
		return
	}
	props := f[0]
	jsonscan.Members(props, 0, func(key string, _, vs, ve int) error {
		path := append(append([]string(nil), prefix...), key)
		pf, err := jsonscan.Fields(props[vs:ve], "x-mcp-header")
		if err == nil && pf[0] != nil {
			h, ok := jsonscan.String(pf[0])
			if ok && h != "" && netrule.HeaderToken(h) && !seen[strings.ToLower(h)] {
				seen[strings.ToLower(h)] = true
				*out = append(*out, paramBinding{path: path, header: h})
			}
		}
		collectParamHeaders(props[vs:ve], path, out, seen, depth+1)
		return nil
	})
}

// setParamHeaders sets the Mcp-Param-* headers of a tools/call of a locked
// tool from its arguments: strings (base64-wrapped when not plain ASCII),
// booleans, and integers within ±(2^53−1); an absent or null argument, or
// one of another type, sends no header (as go-sdk's client does).
func setParamHeaders(h http.Header, bindings map[string][]paramBinding, m *envelope) {
	if m.method != "tools/call" || len(bindings) == 0 {
		return
	}
	f, err := jsonscan.Fields(m.params, "name", "arguments")
	if err != nil {
		return
	}
	name, _ := jsonscan.String(f[0])
	for _, b := range bindings[name] {
		v := f[1]
		for _, k := range b.path {
			if v == nil {
				break
			}
			af, err := jsonscan.Fields(v, k)
			if err != nil {
				v = nil
				break
			}
			v = af[0]
		}
		if s, ok := paramValue(v); ok {
			h.Set(HeaderParamPrefix+b.header, s)
		}
	}
}

// paramValue is the header text of an argument's JSON value.
func paramValue(v []byte) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		s, ok := jsonscan.String(v)
		return headerValue(s), ok
	case 't', 'f':
		return string(v), string(v) == "true" || string(v) == "false"
	case 'n', '{', '[':
		return "", false
	}
	x, err := strconv.ParseFloat(string(v), 64)
	const safe = 1<<53 - 1
	if err != nil || x != math.Trunc(x) || math.Abs(x) > safe {
		return "", false
	}
	return strconv.FormatInt(int64(x), 10), true
}
