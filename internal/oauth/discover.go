package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// maxDoc caps a metadata or token document.
const maxDoc = 256 << 10

// Server is what discovery found for one protected resource.
type Server struct {
	Resource      string // the resource identifier (RFC 8707), as the metadata names it
	Issuer        string // the authorization server's issuer, exactly as its metadata says
	AuthEndpoint  string
	TokenEndpoint string
	RegEndpoint   string   // "" when the server offers no dynamic registration
	Scopes        []string // scopes to ask for ("" none)
}

// Challenge reads a WWW-Authenticate header's Bearer parameters:
// resource_metadata and scope ("" when absent).
func Challenge(header string) (metadata, scope string) {
	rest, ok := cutScheme(header, "bearer")
	if !ok {
		return "", ""
	}
	for rest != "" {
		var key, val string
		key, val, rest = nextParam(rest)
		switch strings.ToLower(key) {
		case "resource_metadata":
			metadata = val
		case "scope":
			scope = val
		case "":
			return
		}
	}
	return
}

func cutScheme(h, scheme string) (string, bool) {
	h = strings.TrimSpace(h)
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) || len(h) > len(scheme) && h[len(scheme)] != ' ' {
		return "", false
	}
	return strings.TrimLeft(h[len(scheme):], " "), true
}

// nextParam reads one auth-param (key=token or key="quoted") and the rest.
func nextParam(s string) (key, val, rest string) {
	s = strings.TrimLeft(s, " ,")
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return "", "", ""
	}
	key, s = strings.TrimSpace(s[:i]), strings.TrimLeft(s[i+1:], " ")
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for j := 1; j < len(s); j++ {
			switch c := s[j]; c {
			case '\\':
				if j+1 < len(s) {
					j++
					b.WriteByte(s[j])
				}
			case '"':
				return key, b.String(), s[j+1:]
			default:
				b.WriteByte(c)
			}
		}
		return "", "", ""
	}
	if j := strings.IndexByte(s, ','); j >= 0 {
		return key, strings.TrimSpace(s[:j]), s[j+1:]
	}
	return key, strings.TrimSpace(s), ""
}

// checkURL applies the remote-URL rule to a URL a server sent.
func checkURL(what, raw string) (*url.URL, error) {
	u, err := netrule.ParseServerURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %s refused: %v", what, termtext.Quoted(raw, 200), err)
	}
	return u, nil
}

// wellKnown inserts /.well-known/NAME between a URL's host and its path
// (RFC 8414 §3.1, RFC 9728 §3.1).
func wellKnown(u *url.URL, name string) string {
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + "/.well-known/" + name + path
}

// Discover finds the authorization server of the MCP server at serverURL,
// from the resource_metadata URL of its 401 (or the well-known location).
func Discover(ctx context.Context, c *http.Client, serverURL, metadataURL string) (*Server, error) {
	su, err := checkURL("server URL", serverURL)
	if err != nil {
		return nil, err
	}
	if metadataURL == "" {
		metadataURL = wellKnown(su, "oauth-protected-resource")
	}
	mu, err := checkURL("protected-resource metadata URL", metadataURL)
	if err != nil {
		return nil, err
	}
	if netrule.Origin(mu) != netrule.Origin(su) {
		return nil, fmt.Errorf("protected-resource metadata URL %s is not on the server's origin %s; refused", termtext.Quoted(metadataURL, 200), netrule.Origin(su))
	}
	f, err := getJSON(ctx, c, mu.String(), "resource", "authorization_servers", "scopes_supported")
	if err != nil {
		return nil, fmt.Errorf("protected-resource metadata: %w", err)
	}
	s := &Server{}
	var ok bool
	if s.Resource, ok = jsonscan.String(f[0]); !ok || !covers(s.Resource, serverURL) {
		return nil, fmt.Errorf("protected-resource metadata: resource %s does not name the server %s", termtext.Quoted(string(f[0]), 200), serverURL)
	}
	ases, ok := jsonscan.Strings(f[1])
	if !ok || len(ases) == 0 {
		return nil, errors.New("protected-resource metadata lists no authorization_servers")
	}
	if f[2] != nil {
		s.Scopes, _ = jsonscan.Strings(f[2])
	}
	return s, s.authServer(ctx, c, ases[0])
}

// covers reports whether the resource identifier names serverURL: the same
// URL, or a prefix of it at a path boundary.
func covers(resource, serverURL string) bool {
	if resource == serverURL {
		return true
	}
	r := strings.TrimSuffix(resource, "/")
	return strings.HasPrefix(serverURL, r+"/") || strings.HasPrefix(serverURL, r+"?")
}

// authServer reads the authorization server metadata of issuer (RFC 8414,
// then OpenID discovery) and checks it.
func (s *Server) authServer(ctx context.Context, c *http.Client, issuer string) error {
	iu, err := checkURL("authorization server", issuer)
	if err != nil {
		return err
	}
	keys := []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "code_challenge_methods_supported"}
	f, err := getJSON(ctx, c, wellKnown(iu, "oauth-authorization-server"), keys...)
	if err != nil {
		var err2 error
		if f, err2 = getJSON(ctx, c, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", keys...); err2 != nil {
			return fmt.Errorf("authorization server metadata of %s: %w", termtext.Quoted(issuer, 200), err)
		}
	}
	str := func(i int) string { v, _ := jsonscan.String(f[i]); return v }
	if s.Issuer = str(0); s.Issuer != issuer {
		return fmt.Errorf("authorization server metadata: issuer %s differs from %s, where it was fetched (RFC 8414 §3.3); refused", termtext.Quoted(s.Issuer, 200), termtext.Quoted(issuer, 200))
	}
	for _, e := range []struct {
		dst  *string
		i    int
		what string
	}{{&s.AuthEndpoint, 1, "authorization_endpoint"}, {&s.TokenEndpoint, 2, "token_endpoint"}, {&s.RegEndpoint, 3, "registration_endpoint"}} {
		*e.dst = str(e.i)
		if *e.dst == "" && e.i == 3 {
			continue
		}
		if _, err := checkURL(e.what, *e.dst); err != nil {
			return err
		}
	}
	methods, _ := jsonscan.Strings(f[4])
	if !slices.Contains(methods, "S256") {
		return fmt.Errorf("authorization server %s does not advertise PKCE with S256 (code_challenge_methods_supported); mcpsum will not sign in without it", termtext.Quoted(issuer, 200))
	}
	return nil
}

// getJSON fetches a JSON object (no redirects: the client's policy) and
// returns the named members (exact keys, duplicates refused).
func getJSON(ctx context.Context, c *http.Client, u string, names ...string) ([][]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	return readJSON(resp, names...)
}

func readJSON(resp *http.Response, names ...string) ([][]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDoc+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDoc {
		return nil, fmt.Errorf("%s: document larger than %d KiB", resp.Request.URL, maxDoc>>10)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered HTTP %d %s", resp.Request.URL, resp.StatusCode, termtext.Quoted(string(b), 200))
	}
	f, err := jsonscan.Fields(b, names...)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid JSON object: %v", resp.Request.URL, err)
	}
	return f, nil
}
