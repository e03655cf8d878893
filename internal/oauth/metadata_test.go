package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsum/mcpsum/internal/netrule"
)

// scriptedAS is a FAKE authorization server and resource metadata host for
// the parsing and refusal rules of discovery and the token flow: each path
// is answered by the test's script, with {{.}} in a body replaced by the
// server's own URL; every request is recorded. The real sign-in, against
// internal/oauth/oauthtest in front of a real MCP server, is
// oauth_test.go's and the e2e TestRemoteOAuth's.
type scriptedAS struct {
	srv *httptest.Server

	mu     sync.Mutex
	paths  map[string]func(w http.ResponseWriter, r *http.Request)
	seen   []string            // METHOD path?query
	bodies map[string][]string // path → request bodies
}

func newAS(t *testing.T) *scriptedAS {
	a := &scriptedAS{paths: map[string]func(http.ResponseWriter, *http.Request){}, bodies: map[string][]string{}}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		a.mu.Lock()
		a.seen = append(a.seen, r.Method+" "+r.URL.RequestURI())
		a.bodies[r.URL.Path] = append(a.bodies[r.URL.Path], string(body))
		h := a.paths[r.URL.Path]
		a.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *scriptedAS) url() string { return a.srv.URL }

// json answers path with a JSON document ({{.}}: the server's URL).
func (a *scriptedAS) json(path string, status int, body string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths[path] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, strings.ReplaceAll(body, "{{.}}", a.srv.URL))
	}
}

func (a *scriptedAS) requests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

// standard scripts a well-behaved resource at /mcp whose authorization
// server is the issuer {{.}}/as (RFC 8414 path insertion).
func (a *scriptedAS) standard() {
	a.json("/.well-known/oauth-protected-resource/mcp", 200, `{"resource":"{{.}}/mcp","authorization_servers":["{{.}}/as"],"scopes_supported":["mcp:read","mcp:write"]}`)
	a.json("/.well-known/oauth-authorization-server/as", 200, asMetadata)
}

const asMetadata = `{"issuer":"{{.}}/as","authorization_endpoint":"{{.}}/as/authorize","token_endpoint":"{{.}}/as/token","registration_endpoint":"{{.}}/as/register","code_challenge_methods_supported":["plain","S256"]}`

// Discovery from the well-known location: the resource metadata at the
// server's origin with the path inserted, then the authorization server's
// metadata at its issuer's well-known path; endpoints, scopes and the
// resource identifier come from them.
func TestDiscoverWellKnown(t *testing.T) {
	a := newAS(t)
	a.standard()
	s, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{})
	if err != nil {
		t.Fatal(err)
	}
	want := Server{Resource: a.url() + "/mcp", Issuer: a.url() + "/as", AuthEndpoint: a.url() + "/as/authorize",
		TokenEndpoint: a.url() + "/as/token", RegEndpoint: a.url() + "/as/register"}
	if s.Resource != want.Resource || s.Issuer != want.Issuer || s.AuthEndpoint != want.AuthEndpoint || s.TokenEndpoint != want.TokenEndpoint || s.RegEndpoint != want.RegEndpoint {
		t.Fatalf("discovered %+v, want %+v", s, want)
	}
	if strings.Join(s.Scopes, " ") != "mcp:read mcp:write" {
		t.Fatalf("scopes %q", s.Scopes)
	}
	if r := a.requests(); len(r) != 2 || r[0] != "GET /.well-known/oauth-protected-resource/mcp" || r[1] != "GET /.well-known/oauth-authorization-server/as" {
		t.Fatalf("requests %q", r)
	}
}

// An authorization server without RFC 8414 metadata is read through
// OpenID discovery; one with neither is an error naming the issuer. A
// metadata document without registration_endpoint is taken (no dynamic
// registration).
func TestDiscoverOpenIDFallback(t *testing.T) {
	a := newAS(t)
	a.json("/.well-known/oauth-protected-resource/mcp", 200, `{"resource":"{{.}}/mcp","authorization_servers":["{{.}}/as"]}`)
	a.json("/as/.well-known/openid-configuration", 200, `{"issuer":"{{.}}/as","authorization_endpoint":"{{.}}/as/authorize","token_endpoint":"{{.}}/as/token","code_challenge_methods_supported":["S256"]}`)
	s, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{})
	if err != nil {
		t.Fatal(err)
	}
	if s.RegEndpoint != "" || s.Scopes != nil || s.TokenEndpoint != a.url()+"/as/token" {
		t.Fatalf("discovered %+v", s)
	}
	b := newAS(t)
	b.json("/.well-known/oauth-protected-resource/mcp", 200, `{"resource":"{{.}}/mcp","authorization_servers":["{{.}}/as"]}`)
	_, err = Discover(context.Background(), http.DefaultClient, b.url()+"/mcp", Challenge{})
	if err == nil || !strings.Contains(err.Error(), "authorization server metadata of") || !strings.Contains(err.Error(), "not found at") {
		t.Fatalf("got %v", err)
	}
}

// Discovery refuses what a hostile or broken server sends: a resource that
// does not name the server, no authorization servers, a document that is
// not one JSON object (or holds a member twice, or a case variant), one
// over the size cap, an error status, an endpoint that is not https (or
// http to this machine), an issuer that differs from where its metadata
// was read, no PKCE S256.
func TestDiscoverRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		resource, as string // documents ("" the standard one)
		want         string
	}{
		"resource elsewhere":    {resource: `{"resource":"{{.}}/other","authorization_servers":["{{.}}/as"]}`, want: "does not cover the server"},
		"resource prefix word":  {resource: `{"resource":"{{.}}/mc","authorization_servers":["{{.}}/as"]}`, want: "does not cover the server"},
		"resource not string":   {resource: `{"resource":1,"authorization_servers":["{{.}}/as"]}`, want: "does not cover the server"},
		"no servers":            {resource: `{"resource":"{{.}}/mcp","authorization_servers":[]}`, want: "no authorization_servers"},
		"servers not strings":   {resource: `{"resource":"{{.}}/mcp","authorization_servers":[1]}`, want: "no authorization_servers"},
		"duplicate member":      {resource: `{"resource":"{{.}}/mcp","resource":"{{.}}/x","authorization_servers":["{{.}}/as"]}`, want: "not a valid JSON object"},
		"case twin":             {resource: `{"resource":"{{.}}/mcp","Resource":"{{.}}/x","authorization_servers":["{{.}}/as"]}`, want: "not a valid JSON object"},
		"not json":              {resource: `<html>`, want: "not a valid JSON object"},
		"too large":             {resource: `{"resource":"` + strings.Repeat("x", maxDoc) + `"}`, want: "larger than 256 KiB"},
		"issuer plain http":     {resource: `{"resource":"{{.}}/mcp","authorization_servers":["http://as.example.com/"]}`, want: "use https"},
		"issuer differs":        {as: strings.Replace(asMetadata, `"issuer":"{{.}}/as"`, `"issuer":"{{.}}/other"`, 1), want: "differs from"},
		"token endpoint ftp":    {as: strings.Replace(asMetadata, `"{{.}}/as/token"`, `"ftp://x/token"`, 1), want: "token_endpoint"},
		"no token endpoint":     {as: strings.Replace(asMetadata, `"token_endpoint":"{{.}}/as/token",`, ``, 1), want: "token_endpoint"},
		"registration userinfo": {as: strings.Replace(asMetadata, `"{{.}}/as/register"`, `"https://u:p@as.example.com/r"`, 1), want: "registration_endpoint"},
		"plain PKCE only":       {as: strings.Replace(asMetadata, `["plain","S256"]`, `["plain"]`, 1), want: "S256"},
	} {
		t.Run(name, func(t *testing.T) {
			a := newAS(t)
			a.standard()
			if c.resource != "" {
				a.json("/.well-known/oauth-protected-resource/mcp", 200, c.resource)
			}
			if c.as != "" {
				a.json("/.well-known/oauth-authorization-server/as", 200, c.as)
			}
			_, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
	a := newAS(t)
	a.json("/.well-known/oauth-protected-resource/mcp", 500, "down\x1b[2J")
	_, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 500") || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("an error status: %v", err)
	}
}

// The metadata URL of a 401's challenge is used when it is on the server's
// origin; a server URL or metadata URL that breaks the remote-URL rule is
// refused before anything is fetched.
func TestDiscoverChallengeURL(t *testing.T) {
	a := newAS(t)
	a.standard()
	a.json("/meta", 200, `{"resource":"{{.}}/mcp","authorization_servers":["{{.}}/as"]}`)
	if _, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{Metadata: a.url() + "/meta"}); err != nil {
		t.Fatal(err)
	}
	if r := a.requests(); r[0] != "GET /meta" {
		t.Fatalf("requests %q", r)
	}
	for server, meta := range map[string]string{
		"http://mcp.example.com/mcp": "",
		a.url() + "/mcp":             "http://evil.example/meta",
		a.url() + "/mcp#frag":        "",
	} {
		if _, err := Discover(context.Background(), http.DefaultClient, server, Challenge{Metadata: meta}); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("server %s meta %s: %v", server, meta, err)
		}
	}
	if len(a.requests()) != 2 {
		t.Fatalf("a refused URL was fetched: %q", a.requests())
	}
}

// The resource identifier covers the server when it is the server's URL or
// a prefix of it at a path boundary (netrule.ResourceCovers, which
// discovery uses).
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		resource, server string
		ok               bool
	}{
		{"https://h/mcp", "https://h/mcp", true},
		{"https://h", "https://h/mcp", true},
		{"https://h/", "https://h/mcp", true},
		{"https://h/mcp", "https://h/mcp?tenant=1", true},
		{"https://h/mc", "https://h/mcp", false},
		{"https://h/mcp/x", "https://h/mcp", false},
		{"https://other/mcp", "https://h/mcp", false},
		{"", "https://h/mcp", false},
	} {
		if netrule.ResourceCovers(c.resource, c.server) != c.ok {
			t.Errorf("ResourceCovers(%q, %q) != %v", c.resource, c.server, c.ok)
		}
	}
}

// The well-known URL is inserted between host and path (RFC 8414 §3.1).
func TestWellKnown(t *testing.T) {
	for raw, want := range map[string]string{
		"https://h/mcp":         "https://h/.well-known/x/mcp",
		"https://h:8443/a/b/":   "https://h:8443/.well-known/x/a/b",
		"https://h":             "https://h/.well-known/x",
		"https://h/a%20b":       "https://h/.well-known/x/a%20b",
		"http://127.0.0.1:9/as": "http://127.0.0.1:9/.well-known/x/as",
	} {
		u, _ := url.Parse(raw)
		if got := wellKnown(u, "x"); got != want {
			t.Errorf("wellKnown(%s) = %s, want %s", raw, got, want)
		}
	}
}

// Challenge reads Bearer parameters: quoted (with escapes) or tokens, any
// case for the scheme and keys, commas and spaces between; anything that
// is not a Bearer challenge, or a malformed one, gives what was read
// before the damage.
func TestChallengeParams(t *testing.T) {
	for h, want := range map[string][2]string{
		`Bearer resource_metadata="https://h/m"`:                      {"https://h/m", ""},
		`bearer   Resource_Metadata=https://h/m, SCOPE=read`:          {"https://h/m", "read"},
		`Bearer scope="a \"b\" c",resource_metadata="https://h/m"`:    {"https://h/m", `a "b" c`},
		`Bearer error="invalid_token", error_description="expired"`:   {"", ""},
		`Bearer resource_metadata="https://h/m", scope="unterminated`: {"https://h/m", ""},
		`Bearer =x, scope=y`:                        {"", ""},
		`Bearerish resource_metadata="https://h/m"`: {"", ""},
		`Bearerresource_metadata="https://h/m"`:     {"", ""},
		`DPoP resource_metadata="https://h/m"`:      {"", ""},
		``:                                          {"", ""},
		`Bear`:                                      {"", ""},
	} {
		c := ParseChallenge(h)
		if m, s := c.Metadata, c.Scope; m != want[0] || s != want[1] {
			t.Errorf("Challenge(%s) = %q, %q; want %q, %q", h, m, s, want[0], want[1])
		}
	}
}

// A server whose metadata names several authorization servers is signed
// in with the first.
func TestDiscoverFirstServer(t *testing.T) {
	a := newAS(t)
	a.standard()
	a.json("/.well-known/oauth-protected-resource/mcp", 200, fmt.Sprintf(`{"resource":"{{.}}/mcp","authorization_servers":["{{.}}/as","%s"]}`, "https://second.example"))
	s, err := Discover(context.Background(), http.DefaultClient, a.url()+"/mcp", Challenge{})
	if err != nil || s.Issuer != a.url()+"/as" {
		t.Fatalf("%+v %v", s, err)
	}
}
