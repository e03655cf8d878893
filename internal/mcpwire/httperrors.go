package mcpwire

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/mcpspec"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// The headers of a 2026-07-28 request, and the HTTP transport's errors and small helpers.

// ModernHeaders sets the 2026-07-28 headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) of a message whose _meta names a 2026-07-28 (or
// later) version; it reports whether it did. The proxy's HTTP upstream and
// mcpwire's own client set them this one way.
func ModernHeaders(h http.Header, m *Message) bool {
	if m.Method == "" || len(m.Params) == 0 {
		return false
	}
	f, err := jsonscan.Fields(m.Params, "_meta", "name", "uri")
	if err != nil || f[0] == nil {
		return false
	}
	mf, err := jsonscan.Fields(f[0], mcpspec.MetaProtocolVersion)
	if err != nil || mf[0] == nil {
		return false
	}
	v, ok := jsonscan.String(mf[0])
	if !ok || !isVersion(v) || v < mcpspec.Modern {
		return false
	}
	h.Set("MCP-Protocol-Version", v)
	h.Set("Mcp-Method", HeaderValue(m.Method))
	name := f[1]
	if m.Method == "resources/read" {
		name = f[2]
	}
	switch m.Method {
	case "tools/call", "prompts/get", "resources/read":
		if s, ok := jsonscan.String(name); ok {
			h.Set("Mcp-Name", HeaderValue(s))
		}
	}
	return true
}

// HeaderValue encodes a value for an Mcp-* header: as is when it is
// printable ASCII without edge spaces, else "=?base64?…?=" (SEP-2243).
func HeaderValue(s string) string {
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

// HTTPStatusError is a request the server refused with an HTTP error status.
// RPC holds the JSON-RPC error its body carried, if any (errors.As finds it).
type HTTPStatusError struct {
	URL    string
	Status int
	Body   string // quoted, truncated
	RPC    *Error
}

func (e *HTTPStatusError) Error() string {
	if e.RPC != nil {
		return fmt.Sprintf("HTTP %d: %v", e.Status, e.RPC)
	}
	return fmt.Sprintf("remote server %s answered HTTP %d %s", e.URL, e.Status, e.Body)
}

func (e *HTTPStatusError) Unwrap() error {
	if e.RPC != nil {
		return e.RPC
	}
	return nil
}

// statusError turns an HTTP error status into the failure of m's call (the
// session goes on: a legacy server refuses server/discover this way).
func (t *HTTP) statusError(resp *http.Response, m *Message) error {
	body, _ := readCapped(resp.Body, 64<<10)
	se := &HTTPStatusError{URL: t.url, Status: resp.StatusCode, Body: termtext.Quoted(string(body), 200)}
	if rm, err := Decode(body); err == nil && rm.Error != nil {
		se.RPC = rm.Error
	}
	if !m.IsRequest() || t.callFailed == nil {
		return se
	}
	t.callFailed(m.ID, se)
	return nil
}

// AuthError is a server that wants credentials mcpsum was not given.
type AuthError struct {
	URL       string
	Status    int
	Challenge string // the WWW-Authenticate header, quoted
	Header    string // the same, raw (untrusted: never print it)
}

func (e *AuthError) Error() string {
	msg := fmt.Sprintf("remote server %s answered HTTP %d: it needs credentials. Pass them from an environment variable with --header NAME=ENVVAR (for example --header Authorization=MY_TOKEN with MY_TOKEN='Bearer …' exported)", e.URL, e.Status)
	if e.Challenge != "" && e.Challenge != `""` {
		msg += "; it asked with WWW-Authenticate: " + e.Challenge
	}
	return msg
}

func readCapped(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("a message longer than the %s limit", sizeString(max))
	}
	return b, nil
}

func drain(body io.ReadCloser) {
	io.CopyN(io.Discard, body, 4<<10)
	body.Close()
}

func what(m *Message) string {
	if m == nil {
		return "the GET stream"
	}
	if m.Method != "" {
		return strconv.Quote(m.Method)
	}
	return "a response"
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
