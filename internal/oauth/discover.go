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
	Scopes        []string // the scopes to ask for: the challenge's, else the resource's scopes_supported
	// What the authorization server's metadata advertises.
	ASScopes    []string // scopes_supported
	AuthMethods []string // token_endpoint_auth_methods_supported (nil: not said, RFC 8414's default client_secret_basic)
	CIMD        bool     // client_id_metadata_document_supported
	IssParam    bool     // authorization_response_iss_parameter_supported (RFC 9207)
	// Legacy: no protected-resource metadata; the server's own origin is
	// its authorization server (the MCP 2025-03-26 discovery).
	Legacy bool
}

// Challenge is what a WWW-Authenticate: Bearer header asks for.
type Challenge struct {
	Metadata string // resource_metadata (RFC 9728 §5.1)
	Scope    string // scope, space-separated
	Error    string // error ("insufficient_scope" for step-up)
	Bearer   bool   // the header asks for a Bearer token at all
}

// ParseChallenge reads a WWW-Authenticate header's Bearer parameters.
func ParseChallenge(header string) Challenge {
	var c Challenge
	rest, ok := cutScheme(header, "bearer")
	if !ok {
		return c
	}
	c.Bearer = true
	for rest != "" {
		var key, val string
		key, val, rest = nextParam(rest)
		switch strings.ToLower(key) {
		case "resource_metadata":
			c.Metadata = val
		case "scope":
			c.Scope = val
		case "error":
			c.Error = val
		case "":
			return c
		}
	}
	return c
}

// Scopes are the challenge's scopes (nil when it names none).
func (c Challenge) Scopes() []string {
	if f := strings.Fields(c.Scope); len(f) > 0 {
		return f
	}
	return nil
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

// origin is u's scheme and host as a URL ("https://example.com:8443").
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// wellKnown inserts /.well-known/NAME between a URL's host and its path
// (RFC 8414 §3.1, RFC 9728 §3.1).
func wellKnown(u *url.URL, name string) string {
	return origin(u) + "/.well-known/" + name + strings.TrimSuffix(u.EscapedPath(), "/")
}

// Discover finds the authorization server of the MCP server at serverURL,
// as the MCP authorization spec orders it: the protected-resource metadata
// the 401's challenge names (resource_metadata), else the path-suffixed
// well-known URL, else the root one (RFC 9728 §3.1), all on the server's
// own origin; a server without any that asks for a Bearer token (the
// 2025-03-26 spec) is its own authorization server. The resource named must cover serverURL
// (netrule.ResourceCovers). Scopes are the challenge's, else the
// resource's scopes_supported.
func Discover(ctx context.Context, c *http.Client, serverURL string, ch Challenge) (*Server, error) {
	su, err := checkURL("server URL", serverURL)
	if err != nil {
		return nil, err
	}
	var candidates []string
	if ch.Metadata != "" {
		mu, err := checkURL("protected-resource metadata URL", ch.Metadata)
		if err != nil {
			return nil, err
		}
		if netrule.Origin(mu) != netrule.Origin(su) {
			return nil, fmt.Errorf("protected-resource metadata URL %s is not on the server's origin %s; refused", termtext.Quoted(ch.Metadata, 200), netrule.Origin(su))
		}
		candidates = append(candidates, mu.String())
	}
	candidates = append(candidates, wellKnown(su, "oauth-protected-resource"), origin(su)+"/.well-known/oauth-protected-resource")
	f, where, err := firstJSON(ctx, c, slices.Compact(candidates), "resource", "authorization_servers", "scopes_supported")
	var nf *notFoundError
	switch {
	case errors.As(err, &nf) && ch.Bearer:
		return legacyServer(ctx, c, su, ch)
	case errors.As(err, &nf):
		return nil, fmt.Errorf("protected-resource metadata: %w, and the server's 401 does not ask for a Bearer token", err)
	case err != nil:
		return nil, fmt.Errorf("protected-resource metadata: %w", err)
	}
	s := &Server{Scopes: ch.Scopes()}
	var ok bool
	if s.Resource, ok = jsonscan.String(f[0]); !ok || !netrule.ResourceCovers(s.Resource, serverURL) {
		return nil, fmt.Errorf("protected-resource metadata %s: resource %s does not cover the server %s (the same origin, at or above its path); refused", where, termtext.Quoted(string(f[0]), 200), serverURL)
	}
	ases, ok := jsonscan.Strings(f[1])
	if !ok || len(ases) == 0 {
		return nil, fmt.Errorf("protected-resource metadata %s lists no authorization_servers", where)
	}
	if len(s.Scopes) == 0 && f[2] != nil {
		s.Scopes, _ = jsonscan.Strings(f[2])
	}
	iu, err := checkURL("authorization server", ases[0])
	if err != nil {
		return nil, err
	}
	return s, s.authServer(ctx, c, iu, ases[0])
}

// legacyServer is the 2025-03-26 discovery: the MCP server's origin is the
// authorization server. Its metadata is read from the origin's root (the
// issuer it names must be on the same origin); without metadata the
// endpoints are /authorize, /token and /register there. The resource is
// the server's URL.
func legacyServer(ctx context.Context, c *http.Client, su *url.URL, ch Challenge) (*Server, error) {
	s := &Server{Resource: su.String(), Scopes: ch.Scopes(), Legacy: true}
	base := origin(su)
	f, _, err := firstJSON(ctx, c, []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}, asKeys...)
	var nf *notFoundError
	switch {
	case errors.As(err, &nf):
		s.Issuer, s.AuthEndpoint, s.TokenEndpoint, s.RegEndpoint = base, base+"/authorize", base+"/token", base+"/register"
		return s, nil
	case err != nil:
		return nil, fmt.Errorf("authorization server metadata of %s: %w", base, err)
	}
	issuer, _ := jsonscan.String(f[0])
	iu, err := checkURL("issuer", issuer)
	if err != nil {
		return nil, err
	}
	if netrule.Origin(iu) != netrule.Origin(su) {
		return nil, fmt.Errorf("authorization server metadata at %s names the issuer %s on another origin; without protected-resource metadata only the server's own origin may issue its tokens; refused", base, termtext.Quoted(issuer, 200))
	}
	return s, s.readAS(f, issuer)
}

var asKeys = []string{"issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "code_challenge_methods_supported",
	"scopes_supported", "token_endpoint_auth_methods_supported", "client_id_metadata_document_supported", "authorization_response_iss_parameter_supported"}

// authServer reads the authorization server metadata of issuer, at the
// URLs the MCP spec lists (RFC 8414 path-inserted, OpenID Connect
// path-inserted, OpenID Connect path-appended), and checks it.
func (s *Server) authServer(ctx context.Context, c *http.Client, iu *url.URL, issuer string) error {
	var urls []string
	if p := strings.TrimSuffix(iu.EscapedPath(), "/"); p != "" {
		urls = []string{wellKnown(iu, "oauth-authorization-server"), wellKnown(iu, "openid-configuration"), origin(iu) + p + "/.well-known/openid-configuration"}
	} else {
		urls = []string{wellKnown(iu, "oauth-authorization-server"), wellKnown(iu, "openid-configuration")}
	}
	f, _, err := firstJSON(ctx, c, urls, asKeys...)
	if err != nil {
		return fmt.Errorf("authorization server metadata of %s: %w", termtext.Quoted(issuer, 200), err)
	}
	return s.readAS(f, issuer)
}

// readAS checks an authorization server's metadata (the fields asKeys
// names): the issuer is exactly want (RFC 8414 §3.3), every endpoint passes
// the remote-URL rule, PKCE with S256 is offered.
func (s *Server) readAS(f [][]byte, want string) error {
	str := func(i int) string { v, _ := jsonscan.String(f[i]); return v }
	if s.Issuer = str(0); s.Issuer != want {
		return fmt.Errorf("authorization server metadata: issuer %s differs from %s, where it was fetched (RFC 8414 §3.3); refused", termtext.Quoted(s.Issuer, 200), termtext.Quoted(want, 200))
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
		return fmt.Errorf("authorization server %s does not advertise PKCE with S256 (code_challenge_methods_supported); mcpsum will not sign in without it", termtext.Quoted(s.Issuer, 200))
	}
	s.ASScopes, _ = jsonscan.Strings(f[5])
	if f[6] != nil {
		s.AuthMethods, _ = jsonscan.Strings(f[6])
		if s.AuthMethods == nil {
			s.AuthMethods = []string{}
		}
	}
	s.CIMD = string(f[7]) == "true"
	s.IssParam = string(f[8]) == "true"
	return nil
}

// notFoundError: none of the URLs tried holds the document.
type notFoundError struct{ urls []string }

func (e *notFoundError) Error() string {
	return "not found at " + strings.Join(e.urls, ", ")
}

// firstJSON fetches the first of urls that answers 200 with a JSON object
// and returns its named members. A 4xx answer moves on to the next URL;
// anything else is an error. where is the URL that answered.
func firstJSON(ctx context.Context, c *http.Client, urls []string, names ...string) (f [][]byte, where string, err error) {
	for _, u := range urls {
		f, status, err := getJSON(ctx, c, u, names...)
		if status >= 400 && status < 500 {
			continue
		}
		if err != nil {
			return nil, u, err
		}
		return f, u, nil
	}
	return nil, "", &notFoundError{urls: urls}
}

// getJSON fetches a JSON object (no redirects: the client's policy) and
// returns the named members (exact keys, duplicates refused) and the HTTP
// status (0 when none came).
func getJSON(ctx context.Context, c *http.Client, u string, names ...string) ([][]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, err
	}
	f, err := readJSON(resp, names...)
	return f, resp.StatusCode, err
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
