package lockfile

import (
	"bytes"
	"slices"
	"sort"

	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// VersionRemote is the lockfileVersion of a file that holds a remote
// (Streamable HTTP) entry. Marshal writes it only then; a file without one
// keeps version 1 or 2, readable by older mcpsum.
const VersionRemote = 3

// Remote reports an entry for a remote (Streamable HTTP) server: it has a
// URL and no command.
func (s *Server) Remote() bool { return s.URL != "" }

// checkRemote validates the fields of a remote entry (normalize calls it
// instead of the command checks): the URL (netrule.ParseServerURL: https,
// http only to loopback, no credentials, no fragment), the header names
// (netrule.HeaderName) and the variables they come from (ValidEnvName);
// no command, no envPassthrough (a remote server has no environment), no
// sandbox (no process to confine).
func checkRemote(s *Server) *FormatError {
	fe := func(item string, err error) *FormatError { return &FormatError{Item: item, Err: err} }
	if len(s.Command) > 0 || len(s.EnvPassthrough) > 0 {
		return fe("url", errf("an entry has either a url (a remote server) or a command and envPassthrough (a local one), not both"))
	}
	if _, err := netrule.ParseServerURL(s.URL); err != nil {
		return fe("url", errf("%s: %v", termtext.Quoted(s.URL, 80), err))
	}
	if s.Headers == nil {
		s.Headers = map[string]string{}
	}
	names := sortedKeys(s.Headers)
	for i, name := range names {
		if err := netrule.HeaderName(name); err != nil {
			return fe("headers", errf("%s: %v", termtext.Quoted(name, 80), err))
		}
		if other, dup := netrule.HeaderTwin(slices.Values(names[:i]), name); dup {
			return fe("headers", errf("%s and %s are the same header (names are case-insensitive)", termtext.Quoted(other, 80), termtext.Quoted(name, 80)))
		}
		if v := s.Headers[name]; !ValidEnvName(v) {
			return fe("headers", errf("header %s: %s is not an environment variable name (the lock names the variable holding the value, never the value)", termtext.Quoted(name, 80), termtext.Quoted(v, 80)))
		}
	}
	if s.URL == "" && s.OAuth != nil {
		return fe("oauth", errf("only a remote entry (with a url) signs in with OAuth"))
	}
	if ferr := checkOAuth(s); ferr != nil {
		return ferr
	}
	if s.Policy != nil && s.Policy.Sandbox != nil {
		return fe("policy.sandbox", errf("a remote server runs elsewhere: there is no process for mcpsum to confine; remove policy.sandbox from this entry (policy.taint works for remote servers)"))
	}
	return nil
}

// appendStringMap writes an object of strings, names sorted: the headers
// object, and the digests of one item kind.
func appendStringMap(b *bytes.Buffer, h map[string]string) {
	b.WriteByte('{')
	for i, k := range sortedKeys(h) {
		if i > 0 {
			b.WriteByte(',')
		}
		encodeString(b, k)
		b.WriteByte(':')
		encodeString(b, h[k])
	}
	b.WriteByte('}')
}

// jcsHeaders is the RFC 8785 form of the headers object (names are HTTP
// tokens, ASCII, so byte order is UTF-16 order).
func jcsHeaders(b []byte, h map[string]string) []byte {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jcsString(b, k)
		b = append(b, ':')
		b = jcsString(b, h[k])
	}
	return append(b, '}')
}

// asStringMap decodes an object of strings (duplicate keys are refused by
// objectMembers); the result is never nil.
func asStringMap(raw []byte) (map[string]string, error) {
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		v, err := asString(m.val)
		if err != nil {
			return nil, errf("%s: %v", termtext.Quoted(m.key, 80), err)
		}
		out[m.key] = v
	}
	return out, nil
}
