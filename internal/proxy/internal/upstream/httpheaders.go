package upstream

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/netrule"
)

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
func setParamHeaders(h http.Header, bindings map[string][]paramBinding, m *mcpwire.Message) {
	if m.Method != "tools/call" || len(bindings) == 0 {
		return
	}
	f, err := jsonscan.Fields(m.Params, "name", "arguments")
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
			h.Set("Mcp-Param-"+b.header, s)
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
		return mcpwire.HeaderValue(s), ok
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
