package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// testAS is a small authorization server written for these tests (RFC 8414
// metadata, RFC 7591 registration, authorization code with PKCE S256 and
// the RFC 8707 resource, refresh), plus the protected-resource metadata of
// the MCP server it guards. Knobs make it misbehave.
type testAS struct {
	srv      *httptest.Server
	resource string

	mu         sync.Mutex
	challenges map[string]string // code → code_challenge
	resources  map[string]string // code → resource asked for
	refreshed  int

	issuerOverride string // metadata claims another issuer
	noS256         bool
	authEndpoint   string // overrides the authorization_endpoint
	badState       bool   // the redirect carries another state
}

func newTestAS(t *testing.T) *testAS {
	a := &testAS{challenges: map[string]string{}, resources: map[string]string{}}
	a.srv = httptest.NewServer(a)
	a.resource = a.srv.URL + "/mcp"
	t.Cleanup(a.srv.Close)
	return a
}

func (a *testAS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	js := func(v any) { w.Header().Set("Content-Type", "application/json"); json.NewEncoder(w).Encode(v) }
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		js(map[string]any{"resource": a.resource, "authorization_servers": []string{a.srv.URL}, "scopes_supported": []string{"mcp"}})
	case "/.well-known/oauth-authorization-server":
		issuer := a.srv.URL
		if a.issuerOverride != "" {
			issuer = a.issuerOverride
		}
		methods := []string{"S256"}
		if a.noS256 {
			methods = []string{"plain"}
		}
		auth := a.srv.URL + "/authorize"
		if a.authEndpoint != "" {
			auth = a.authEndpoint
		}
		js(map[string]any{"issuer": issuer, "authorization_endpoint": auth, "token_endpoint": a.srv.URL + "/token",
			"registration_endpoint": a.srv.URL + "/register", "code_challenge_methods_supported": methods})
	case "/register":
		w.WriteHeader(http.StatusCreated)
		js(map[string]any{"client_id": "client-1"})
	case "/authorize":
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "client-1" || q.Get("resource") != a.resource {
			http.Error(w, "bad authorization request "+q.Encode(), http.StatusBadRequest)
			return
		}
		code := fmt.Sprintf("code-%d", len(a.challenges))
		a.challenges[code], a.resources[code] = q.Get("code_challenge"), q.Get("resource")
		state := q.Get("state")
		if a.badState {
			state = "forged"
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {state}}.Encode(), http.StatusFound)
	case "/token":
		r.ParseForm()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			code := r.Form.Get("code")
			if a.challenges[code] == "" || base64.RawURLEncoding.EncodeToString(sum[:]) != a.challenges[code] || r.Form.Get("resource") != a.resources[code] {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			delete(a.challenges, code)
			js(map[string]any{"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"})
		case "refresh_token":
			if r.Form.Get("refresh_token") != "rt-1" || r.Form.Get("resource") != a.resource {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			a.refreshed++
			js(map[string]any{"access_token": fmt.Sprintf("at-r%d", a.refreshed), "token_type": "bearer", "expires_in": 3600})
		}
	default:
		http.NotFound(w, r)
	}
}

// browser plays the user: it opens the authorization URL and follows the
// redirect to mcpsum's loopback listener.
func browser(t *testing.T) func(string) error {
	return func(u string) error {
		resp, err := http.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

func TestLoginAndRefresh(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a := newTestAS(t)
	ctx := context.Background()
	meta, _ := Challenge(`Bearer error="invalid_token", resource_metadata="` + a.srv.URL + `/.well-known/oauth-protected-resource/mcp"`)
	s, err := Discover(ctx, http.DefaultClient, a.resource, meta)
	if err != nil {
		t.Fatal(err)
	}
	if s.Issuer != a.srv.URL || s.Resource != a.resource {
		t.Fatalf("discovered %+v", s)
	}
	tok, err := Login(ctx, http.DefaultClient, s, Options{Open: browser(t), Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "at-1" || tok.RefreshToken != "rt-1" || !tok.Valid(time.Now()) {
		t.Fatalf("token %+v", tok)
	}
	if err := Save(tok); err != nil {
		t.Fatal(err)
	}
	back, err := Load(s.Resource, s.Issuer)
	if err != nil || back == nil || back.AccessToken != "at-1" || back.ClientID != "client-1" {
		t.Fatalf("Load: %+v %v", back, err)
	}
	if other, _ := Load(s.Resource, "https://other.example"); other != nil {
		t.Fatal("tokens of one issuer were returned for another")
	}
	n, err := Refresh(ctx, http.DefaultClient, s, back)
	if err != nil || n.AccessToken != "at-r1" || n.RefreshToken != "rt-1" {
		t.Fatalf("Refresh: %+v %v", n, err)
	}
}

func TestDiscoveryRefusesHostileMetadata(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct {
		set  func(a *testAS)
		meta func(a *testAS) string
		want string
	}{
		"issuer mismatch":     {set: func(a *testAS) { a.issuerOverride = "https://evil.example" }, want: "differs from"},
		"no S256":             {set: func(a *testAS) { a.noS256 = true }, want: "S256"},
		"javascript endpoint": {set: func(a *testAS) { a.authEndpoint = "javascript:alert(1)" }, want: "authorization_endpoint"},
		"plain http endpoint": {set: func(a *testAS) { a.authEndpoint = "http://login.example.com/authorize" }, want: "use https"},
		"shell in endpoint":   {set: func(a *testAS) { a.authEndpoint = "https://x.example/$(touch /tmp/pwned)" }, want: "authorization_endpoint"},
		"metadata elsewhere":  {meta: func(a *testAS) string { return "https://evil.example/.well-known/oauth-protected-resource" }, want: "not on the server's origin"},
	} {
		t.Run(name, func(t *testing.T) {
			a := newTestAS(t)
			if c.set != nil {
				c.set(a)
			}
			meta := ""
			if c.meta != nil {
				meta = c.meta(a)
			}
			_, err := Discover(ctx, http.DefaultClient, a.resource, meta)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

func TestLoginRefusesForgedState(t *testing.T) {
	a := newTestAS(t)
	a.badState = true
	s, err := Discover(context.Background(), http.DefaultClient, a.resource, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Login(context.Background(), http.DefaultClient, s, Options{Open: browser(t), Wait: 10 * time.Second}); err == nil || !strings.Contains(err.Error(), "state") {
		t.Fatalf("got %v, want a forged state refused", err)
	}
}

func TestChallenge(t *testing.T) {
	m, s := Challenge(`Bearer realm="x", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource"`)
	if m != "https://h/.well-known/oauth-protected-resource" || s != "a b" {
		t.Fatalf("%q %q", m, s)
	}
	if m, _ := Challenge(`Basic realm="x"`); m != "" {
		t.Fatal("a Basic challenge gave metadata")
	}
}
