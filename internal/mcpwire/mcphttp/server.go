package mcphttp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The protocol facts the server side of Streamable HTTP (internal/serve)
// shares with this client: the header names, the session id's syntax, a
// message as one line, and the check that a 2026-07-28 request's headers
// say what its body says, computed by the very code that sets them here.

// The headers of Streamable HTTP.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
	HeaderLastEventID     = "Last-Event-ID"
)

// ValidSessionID reports whether s can be an Mcp-Session-Id: visible ASCII
// (0x21–0x7E), at most 1024 bytes.
func ValidSessionID(s string) bool { return validSessionID(s) }

// OneLine turns the line breaks of a JSON text into tabs, in place: the
// same whitespace between tokens and still invalid inside a string, so the
// message means what it meant and is one line of the proxy's framing.
func OneLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = '\t'
		}
	}
	return b
}

// ParamHeaders are the Mcp-Param-* headers the locked tools' x-mcp-header
// annotations call for (lockedParamHeaders), read once.
type ParamHeaders struct{ byTool map[string][]paramBinding }

// LockedParamHeaders reads the annotations of the locked tools.
func LockedParamHeaders(tools []json.RawMessage) ParamHeaders {
	return ParamHeaders{lockedParamHeaders(tools)}
}

// HeaderMismatchError is a 2026-07-28 request whose headers disagree with
// its body (JSON-RPC -32020 over HTTP 400).
type HeaderMismatchError struct{ Msg string }

func (e *HeaderMismatchError) Error() string { return e.Msg }

// CheckModern checks the headers h of a 2026-07-28 request whose body is
// msg: MCP-Protocol-Version, Mcp-Method, Mcp-Name and every Mcp-Param-* of
// a locked tool must say exactly what the body says (values compared
// decoded, integers as numbers), and no Mcp-Param-* may come for an
// argument that is absent. The expected headers are those this client
// sets (modern.set, setParamHeaders). ok is false for a message that is not
// a 2026-07-28 request (its _meta names no such version).
func CheckModern(h http.Header, msg []byte, ph ParamHeaders) (ok bool, err error) {
	m, err := readEnvelope(msg)
	if err != nil || !m.request() {
		return false, nil
	}
	mo, ok := modernOf(&m)
	if !ok {
		return false, nil
	}
	want := http.Header{}
	mo.set(want, m.method)
	setParamHeaders(want, ph.byTool, &m)
	if got := h.Get(HeaderProtocolVersion); got != mo.version {
		return true, mismatch(HeaderProtocolVersion, got, mo.version)
	}
	if got := h.Get(HeaderMethod); decodeValue(got) != m.method {
		return true, mismatch(HeaderMethod, got, m.method)
	}
	if w := want.Get(HeaderName); w != "" || h.Get(HeaderName) != "" {
		if got := h.Get(HeaderName); decodeValue(got) != decodeValue(w) {
			return true, mismatch(HeaderName, got, decodeValue(w))
		}
	}
	for k, vs := range h {
		if strings.HasPrefix(k, http.CanonicalHeaderKey(HeaderParamPrefix)) && want.Get(k) == "" && len(vs) > 0 {
			return true, &HeaderMismatchError{fmt.Sprintf("header mismatch: %s names no argument of the call the lock annotates, or one that is absent", termtext.Quoted(k, 100))}
		}
	}
	for k := range want {
		if !strings.HasPrefix(k, http.CanonicalHeaderKey(HeaderParamPrefix)) {
			continue
		}
		got, w := h.Get(k), want.Get(k)
		if !sameParam(got, w) {
			return true, mismatch(k, got, decodeValue(w))
		}
	}
	return true, nil
}

func mismatch(header, got, want string) error {
	if got == "" {
		return &HeaderMismatchError{fmt.Sprintf("header mismatch: missing %s header (the body says %s)", header, termtext.Quoted(want, 100))}
	}
	return &HeaderMismatchError{fmt.Sprintf("header mismatch: %s header %s does not match the body (%s)", header, termtext.Quoted(got, 100), termtext.Quoted(want, 100))}
}

// decodeValue undoes headerValue's "=?base64?…?=" wrapping.
func decodeValue(v string) string {
	if s, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if s, ok = strings.CutSuffix(s, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				return string(b)
			}
		}
	}
	return v
}

// sameParam compares an Mcp-Param-* value got with the one this client
// would send (want): decoded, and integers by value ("1" and "1.0").
func sameParam(got, want string) bool {
	g, w := decodeValue(got), decodeValue(want)
	if g == w {
		return got != "" || want == ""
	}
	wi, err := strconv.ParseInt(w, 10, 64)
	if err != nil {
		return false
	}
	gf, err := strconv.ParseFloat(g, 64)
	return err == nil && gf == math.Trunc(gf) && int64(gf) == wi
}

// ID reads a JSON-RPC message's id and method (exact keys): what a server
// routes on. ok is false for a message that is not a JSON-RPC message.
func ID(msg []byte) (id []byte, method string, ok bool) {
	m, err := readEnvelope(msg)
	if err != nil {
		return nil, "", false
	}
	return m.id, m.method, true
}
