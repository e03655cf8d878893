package oauthtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Server is the authorization server and the resource front, on one origin.
type Server struct {
	HTTP     *httptest.Server
	Resource string // the MCP endpoint: HTTP.URL + "/mcp"

	mu      sync.Mutex
	issuer  string           // current issuer path: "/as" or "/as2"
	codes   map[string]grant // code → what was asked
	access  map[string]grant // access token → its grant
	refresh map[string]grant // refresh token → its grant
	clients map[string]client
	// Counters and what was asked, for tests to read after a command ran.
	Logins, Refreshs int
	AuthRequests     []url.Values // every authorization request's query
	TokenAuth        []string     // how each token request authenticated: none, client_secret_basic, client_secret_post

	// Knobs, set before use.
	Knobs Knobs
}

// Knobs make the server behave one way or another (each documented as the
// behaviour it stands for).
type Knobs struct {
	IssuerOverride string // the metadata claims this issuer
	NoS256         bool
	AuthEndpoint   string // overrides the authorization_endpoint
	BadState       bool   // the redirect carries a forged state

	PRMAtRoot      bool   // protected-resource metadata only at the origin's root (resource = the origin), and the 401 does not name it (go-sdk's auth example)
	ChallengeScope string // the 401 names this scope; tokens must carry it
	CallScope      string // a tools/call needs this scope too: 403 insufficient_scope naming both
	SendIss        bool   // advertise and send RFC 9207's iss
	IssValue       string // with SendIss: send this iss instead of the issuer (a mix-up)
	ResourceOther  string // the metadata names this resource instead

	CIMD           bool     // accept Client ID Metadata Documents (client_id_metadata_document_supported)
	NoRegistration bool     // no registration_endpoint
	AuthMethods    []string // token_endpoint_auth_methods_supported (nil: not advertised; clients are public)
	PreRegistered  [2]string
	// RegisteredRedirects: the registration answer lists these redirect
	// URIs instead of the ones asked for (a hostile server).
	RegisteredRedirects []string
}

type grant struct {
	challenge, resource, issuer, client string
	scopes                              []string
}

type client struct {
	secret, method string
	redirects      []string
}

// New starts the server; backend ("" for none) is the real MCP server the
// front forwards authorized requests to.
func New(t testing.TB, backend string) *Server {
	s := &Server{issuer: "/as", codes: map[string]grant{}, access: map[string]grant{}, refresh: map[string]grant{}, clients: map[string]client{}}
	var rp *httputil.ReverseProxy
	if backend != "" {
		bu, _ := url.Parse(backend)
		rp = httputil.NewSingleHostReverseProxy(bu)
		rp.FlushInterval = -1
	}
	s.HTTP = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, rp) }))
	s.Resource = s.HTTP.URL + "/mcp"
	t.Cleanup(s.HTTP.Close)
	return s
}

// Issuer is the current issuer URL.
func (s *Server) Issuer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.HTTP.URL + s.issuer
}

// MoveIssuer makes the resource trust only a second authorization server
// (issuer .../as2): tokens of the first are refused from now on.
func (s *Server) MoveIssuer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issuer = "/as2"
}

// ExpireAccess refuses every access token issued so far (refresh tokens
// still work), as when they expire.
func (s *Server) ExpireAccess() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string]grant{}
}

// resourceID is the resource the metadata names.
func (s *Server) resourceID() string {
	switch {
	case s.Knobs.ResourceOther != "":
		return s.Knobs.ResourceOther
	case s.Knobs.PRMAtRoot:
		return s.HTTP.URL
	}
	return s.Resource
}

// resource is the MCP endpoint: a valid bearer token of the current
// issuer with the scopes asked for, or 401 (403 for a missing scope) with
// the protected-resource metadata.
func (s *Server) resource(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	g, ok := s.access[strings.TrimPrefix(auth, "Bearer ")]
	ok = ok && g.issuer == s.issuer && strings.HasPrefix(auth, "Bearer ")
	k := s.Knobs
	s.mu.Unlock()
	meta := ` resource_metadata="` + s.HTTP.URL + `/.well-known/oauth-protected-resource/mcp"`
	if k.PRMAtRoot {
		meta = ""
	}
	scope := ""
	if k.ChallengeScope != "" {
		scope = ` scope="` + k.ChallengeScope + `",`
	}
	if !ok || (k.ChallengeScope != "" && !has(g.scopes, k.ChallengeScope)) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token",`+scope+meta)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if k.CallScope != "" && isCall(r) && !has(g.scopes, k.CallScope) {
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+strings.TrimSpace(k.ChallengeScope+" "+k.CallScope)+`",`+meta)
		http.Error(w, "insufficient scope", http.StatusForbidden)
		return
	}
	if rp == nil {
		http.Error(w, "no backend", http.StatusBadGateway)
		return
	}
	rp.ServeHTTP(w, r)
}

// isCall peeks at a POST body for a tools/call (and puts it back).
func isCall(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	var b strings.Builder
	buf := make([]byte, 4096)
	for b.Len() < 1<<20 {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	r.Body = readCloser{strings.NewReader(b.String())}
	return strings.Contains(b.String(), `"tools/call"`)
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func token() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	if r.URL.Path == "/mcp" {
		s.resource(w, r, rp)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	js := func(v any) { w.Header().Set("Content-Type", "application/json"); json.NewEncoder(w).Encode(v) }
	base := s.HTTP.URL
	switch p := r.URL.Path; {
	case p == "/.well-known/oauth-protected-resource/mcp" && !s.Knobs.PRMAtRoot,
		p == "/.well-known/oauth-protected-resource" && s.Knobs.PRMAtRoot:
		js(map[string]any{"resource": s.resourceID(), "authorization_servers": []string{base + s.issuer}, "scopes_supported": []string{"mcp"}})
	case p == "/.well-known/oauth-authorization-server/as" || p == "/.well-known/oauth-authorization-server/as2":
		js(s.metadata(strings.TrimPrefix(p, "/.well-known/oauth-authorization-server")))
	case strings.HasSuffix(p, "/register") && !s.Knobs.NoRegistration:
		s.register(w, r)
	case strings.HasSuffix(p, "/authorize"):
		s.authorize(w, r)
	case strings.HasSuffix(p, "/token"):
		s.token(w, r, strings.TrimSuffix(p, "/token"))
	default:
		http.NotFound(w, r)
	}
}

// metadata is the RFC 8414 document of the issuer at path iss.
func (s *Server) metadata(iss string) map[string]any {
	base := s.HTTP.URL
	issuer := base + iss
	if s.Knobs.IssuerOverride != "" {
		issuer = s.Knobs.IssuerOverride
	}
	methods := []string{"S256"}
	if s.Knobs.NoS256 {
		methods = []string{"plain"}
	}
	authz := base + iss + "/authorize"
	if s.Knobs.AuthEndpoint != "" {
		authz = s.Knobs.AuthEndpoint
	}
	m := map[string]any{"issuer": issuer, "authorization_endpoint": authz, "token_endpoint": base + iss + "/token",
		"code_challenge_methods_supported": methods, "scopes_supported": []string{"mcp", "offline_access"}}
	if !s.Knobs.NoRegistration {
		m["registration_endpoint"] = base + iss + "/register"
	}
	if s.Knobs.AuthMethods != nil {
		m["token_endpoint_auth_methods_supported"] = s.Knobs.AuthMethods
	}
	if s.Knobs.CIMD {
		m["client_id_metadata_document_supported"] = true
	}
	if s.Knobs.SendIss {
		m["authorization_response_iss_parameter_supported"] = true
	}
	return m
}
