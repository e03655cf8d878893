package clientconfig

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonc"
)

// classify sets the status of an entry whose argv was read.
func classify(e *Entry, c *Client) {
	if lf, name, ok := wrapped(e.Argv); ok {
		e.Status, e.Proxy.Lockfile, e.Proxy.Name = Wrapped, lf, name
		e.Note = fmt.Sprintf("already runs mcpsum proxy (--lockfile %s --name %s)", lf, name)
		return
	}
	for _, a := range e.Argv {
		if v := interpolation(a, c.DollarVars); v != "" {
			e.Status = Interpolated
			e.Note = fmt.Sprintf("its command line uses %s, which %s expands when it starts the server; mcpsum does not guess its value", v, c.Title)
			return
		}
	}
	e.Status = Lockable
}

// interpolation returns the first variable reference in s ("" if none).
func interpolation(s string, dollar bool) string {
	if i := strings.Index(s, "${"); i >= 0 {
		if j := strings.IndexByte(s[i:], '}'); j > 0 {
			return s[i : i+j+1]
		}
		return s[i:]
	}
	if dollar {
		for i := 0; i+1 < len(s); i++ {
			if c := s[i+1]; s[i] == '$' && (c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z') {
				j := i + 1
				for j < len(s) && (s[j] == '_' || s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z' || s[j] >= '0' && s[j] <= '9') {
					j++
				}
				return s[i:j]
			}
		}
	}
	return ""
}

// wrapped recognises `mcpsum proxy … --lockfile L … --name N`.
func wrapped(argv []string) (lockfile, name string, ok bool) {
	if len(argv) < 2 || argv[1] != "proxy" {
		return "", "", false
	}
	base := strings.TrimSuffix(argv[0], ".exe")
	if i := strings.LastIndexAny(argv[0], `/\`); i >= 0 {
		base = strings.TrimSuffix(argv[0][i+1:], ".exe")
	}
	if base != "mcpsum" {
		return "", "", false
	}
	lockfile = "mcp.lock"
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		for _, f := range []string{"--lockfile", "-lockfile"} {
			if a == f && i+1 < len(argv) {
				lockfile = argv[i+1]
			} else if v, ok := strings.CutPrefix(a, f+"="); ok {
				lockfile = v
			}
		}
		for _, f := range []string{"--name", "-name"} {
			if a == f && i+1 < len(argv) {
				name = argv[i+1]
			} else if v, ok := strings.CutPrefix(a, f+"="); ok {
				name = v
			}
		}
	}
	return lockfile, name, true
}

func hostOf(v *jsonc.Value) string {
	if v.Kind != jsonc.String {
		return "(not a string)"
	}
	return hostString(v.Str)
}

// hostString keeps the scheme and host of a URL: its path or query may
// carry a token.
func hostString(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	return u.Scheme + "://" + u.Host
}

func describe(v *jsonc.Value) string {
	if v.Kind == jsonc.String {
		return "an empty string"
	}
	return v.Kind.String()
}
