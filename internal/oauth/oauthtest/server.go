package oauthtest

import (
	"crypto/rand"
	"crypto/sha256"
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

	mu       sync.Mutex
	issuer   string            // current issuer path: "/as" or "/as2"
	codes    map[string]grant  // code → what was asked
	access   map[string]string // access token → issuer path
	refresh  map[string]string // refresh token → issuer path
	Logins   int
	Refreshs int

	// Knobs, set before use.
	IssuerOverride string // metadata claims this issuer
	NoS256         bool
	AuthEndpoint   string // overrides the authorization_endpoint
	BadState       bool   // the redirect carries a forged state
}

type grant struct{ challenge, resource string }

// New starts the server; backend ("" for none) is the real MCP server the
// front forwards authorized requests to.
func New(t testing.TB, backend string) *Server {
	s := &Server{issuer: "/as", codes: map[string]grant{}, access: map[string]string{}, refresh: map[string]string{}}
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
	s.access = map[string]string{}
}

// resource is the MCP endpoint: a valid bearer token of the current
// issuer, or 401 with the protected-resource metadata.
func (s *Server) resource(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	iss, ok := s.access[strings.TrimPrefix(auth, "Bearer ")]
	ok = ok && iss == s.issuer && strings.HasPrefix(auth, "Bearer ")
	s.mu.Unlock()
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+s.HTTP.URL+`/.well-known/oauth-protected-resource/mcp"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if rp == nil {
		http.Error(w, "no backend", http.StatusBadGateway)
		return
	}
	rp.ServeHTTP(w, r)
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
	case p == "/.well-known/oauth-protected-resource/mcp":
		js(map[string]any{"resource": s.Resource, "authorization_servers": []string{base + s.issuer}, "scopes_supported": []string{"mcp"}})
	case p == "/.well-known/oauth-authorization-server/as" || p == "/.well-known/oauth-authorization-server/as2":
		iss := strings.TrimPrefix(p, "/.well-known/oauth-authorization-server")
		issuer := base + iss
		if s.IssuerOverride != "" {
			issuer = s.IssuerOverride
		}
		methods := []string{"S256"}
		if s.NoS256 {
			methods = []string{"plain"}
		}
		authz := base + iss + "/authorize"
		if s.AuthEndpoint != "" {
			authz = s.AuthEndpoint
		}
		js(map[string]any{"issuer": issuer, "authorization_endpoint": authz, "token_endpoint": base + iss + "/token",
			"registration_endpoint": base + iss + "/register", "code_challenge_methods_supported": methods})
	case strings.HasSuffix(p, "/register"):
		w.WriteHeader(http.StatusCreated)
		js(map[string]any{"client_id": "mcpsum-test-client"})
	case strings.HasSuffix(p, "/authorize"):
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "mcpsum-test-client" || q.Get("resource") != s.Resource || q.Get("response_type") != "code" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		code := token()
		s.codes[code] = grant{q.Get("code_challenge"), q.Get("resource")}
		state := q.Get("state")
		if s.BadState {
			state = "forged"
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {state}}.Encode(), http.StatusFound)
	case strings.HasSuffix(p, "/token"):
		r.ParseForm()
		iss := strings.TrimSuffix(p, "/token")
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			g, ok := s.codes[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.Form.Get("resource") != g.resource {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			delete(s.codes, r.Form.Get("code"))
			s.Logins++
		case "refresh_token":
			if s.refresh[r.Form.Get("refresh_token")] != iss || r.Form.Get("resource") != s.Resource {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			s.Refreshs++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		at, rt := token(), token()
		s.access[at], s.refresh[rt] = iss, iss
		js(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
	default:
		http.NotFound(w, r)
	}
}
