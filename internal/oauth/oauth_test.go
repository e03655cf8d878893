package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/oauth"
	"github.com/mcpsum/mcpsum/internal/oauth/oauthtest"
)

// browser plays the user: it opens the authorization URL and follows the
// redirect to mcpsum's loopback listener.
func browser(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

func challengeOf(t *testing.T, as *oauthtest.Server) oauth.Challenge {
	t.Helper()
	resp, err := http.Get(as.Resource)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the resource answered %d without a token", resp.StatusCode)
	}
	return oauth.ParseChallenge(resp.Header.Get("WWW-Authenticate"))
}

// signIn discovers as and signs in with o (browser and a short wait by default).
func signIn(t *testing.T, as *oauthtest.Server, o oauth.Options) (*oauth.Server, *oauth.Token, error) {
	t.Helper()
	s, err := oauth.Discover(context.Background(), http.DefaultClient, as.Resource, challengeOf(t, as))
	if err != nil {
		t.Fatal(err)
	}
	if o.Open == nil {
		o.Open = browser
	}
	if o.Wait == 0 {
		o.Wait = 20 * time.Second
	}
	tok, err := oauth.Login(context.Background(), http.DefaultClient, s, o)
	return s, tok, err
}

func TestLoginAndRefresh(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	as := oauthtest.New(t, "")
	s, tok, err := signIn(t, as, oauth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Issuer != as.Issuer() || s.Resource != as.Resource {
		t.Fatalf("discovered %+v", s)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || !tok.Valid(time.Now()) || as.Logins != 1 {
		t.Fatalf("token %+v after %d logins", tok, as.Logins)
	}
	if err := oauth.Save(tok); err != nil {
		t.Fatal(err)
	}
	back, err := oauth.Load(s.Resource, s.Issuer)
	if err != nil || back == nil || back.AccessToken != tok.AccessToken || back.Client.ID != "mcpsum-test-client" || !slices.Equal(back.Scopes, tok.Scopes) {
		t.Fatalf("Load: %+v %v", back, err)
	}
	if other, _ := oauth.Load(s.Resource, "https://other.example"); other != nil {
		t.Fatal("tokens of one issuer were returned for another")
	}
	n, err := oauth.Refresh(context.Background(), http.DefaultClient, s, back)
	if err != nil || n.AccessToken == tok.AccessToken || as.Refreshs != 1 {
		t.Fatalf("Refresh: %+v %v", n, err)
	}
}

// A token goes only where its resource covers.
func TestTokenFor(t *testing.T) {
	tok := &oauth.Token{Resource: "https://mcp.example.com/mcp"}
	if !tok.For("https://mcp.example.com/mcp") || tok.For("https://evil.example/mcp") || tok.For("https://mcp.example.com/admin") {
		t.Fatal("Token.For does not follow the resource")
	}
}

func TestDiscoveryRefusesHostileMetadata(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct {
		set  func(k *oauthtest.Knobs)
		meta string
		want string
	}{
		"issuer mismatch":     {set: func(k *oauthtest.Knobs) { k.IssuerOverride = "https://evil.example" }, want: "differs from"},
		"no S256":             {set: func(k *oauthtest.Knobs) { k.NoS256 = true }, want: "S256"},
		"javascript endpoint": {set: func(k *oauthtest.Knobs) { k.AuthEndpoint = "javascript:alert(1)" }, want: "authorization_endpoint"},
		"plain http endpoint": {set: func(k *oauthtest.Knobs) { k.AuthEndpoint = "http://login.example.com/authorize" }, want: "use https"},
		"shell in endpoint":   {set: func(k *oauthtest.Knobs) { k.AuthEndpoint = "https://x.example/$(touch /tmp/pwned)" }, want: "authorization_endpoint"},
		"metadata elsewhere":  {meta: "https://evil.example/.well-known/oauth-protected-resource", want: "not on the server's origin"},
		"resource elsewhere":  {set: func(k *oauthtest.Knobs) { k.ResourceOther = "https://evil.example/mcp" }, want: "does not cover"},
		"resource beside":     {set: func(k *oauthtest.Knobs) { k.ResourceOther = "http://127.0.0.1:1/mcp" }, want: "does not cover"},
	} {
		t.Run(name, func(t *testing.T) {
			as := oauthtest.New(t, "")
			if c.set != nil {
				c.set(&as.Knobs)
			}
			_, err := oauth.Discover(ctx, http.DefaultClient, as.Resource, oauth.Challenge{Metadata: c.meta, Bearer: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// Metadata only at the root well-known URL (go-sdk's auth example,
// context7's HTTP mode) is found after the 401's and the path-suffixed one.
func TestDiscoveryFallsBackToRootMetadata(t *testing.T) {
	as := oauthtest.New(t, "")
	as.Knobs.PRMAtRoot = true
	ch := challengeOf(t, as)
	if ch.Metadata != "" {
		t.Fatalf("the 401 names %q", ch.Metadata)
	}
	s, err := oauth.Discover(context.Background(), http.DefaultClient, as.Resource, ch)
	if err != nil {
		t.Fatal(err)
	}
	if s.Resource != as.HTTP.URL || s.Issuer != as.Issuer() || s.Legacy {
		t.Fatalf("discovered %+v", s)
	}
}

// The 2025-03-26 discovery: no protected-resource metadata; the server's
// origin is its own authorization server (metadata at the root, or the
// default endpoints); an issuer on another origin is refused.
func TestLegacyDiscovery(t *testing.T) {
	var issuer string
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		if issuer == "" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": srv.URL + "/oauth/authorize",
			"token_endpoint": srv.URL + "/oauth/token", "code_challenge_methods_supported": []string{"S256"}})
	})
	bearer := oauth.Challenge{Bearer: true}
	ctx := context.Background()
	issuer = srv.URL + "/oauth"
	s, err := oauth.Discover(ctx, http.DefaultClient, srv.URL+"/mcp", bearer)
	if err != nil || !s.Legacy || s.Issuer != issuer || s.Resource != srv.URL+"/mcp" || s.TokenEndpoint != srv.URL+"/oauth/token" {
		t.Fatalf("root metadata: %+v %v", s, err)
	}
	issuer = "https://evil.example/oauth"
	if _, err := oauth.Discover(ctx, http.DefaultClient, srv.URL+"/mcp", bearer); err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("an issuer on another origin: %v", err)
	}
	issuer = ""
	s, err = oauth.Discover(ctx, http.DefaultClient, srv.URL+"/mcp", bearer)
	if err != nil || s.Issuer != srv.URL || s.AuthEndpoint != srv.URL+"/authorize" || s.RegEndpoint != srv.URL+"/register" {
		t.Fatalf("default endpoints: %+v %v", s, err)
	}
	if _, err := oauth.Discover(ctx, http.DefaultClient, srv.URL+"/mcp", oauth.Challenge{}); err == nil || !strings.Contains(err.Error(), "Bearer") {
		t.Fatalf("a 401 that asks for no Bearer token: %v", err)
	}
}

// The scope asked for is the one the challenge names (plus offline_access,
// which the server lists, for a refresh token), not every scope the server
// supports.
func TestScopeFromChallenge(t *testing.T) {
	as := oauthtest.New(t, "")
	as.Knobs.ChallengeScope = "files:read"
	s, tok, err := signIn(t, as, oauth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Scopes, []string{"files:read"}) || as.AuthRequests[0].Get("scope") != "files:read offline_access" {
		t.Fatalf("asked for %q (discovered %q)", as.AuthRequests[0].Get("scope"), s.Scopes)
	}
	if !tok.Grants([]string{"files:read"}) || tok.Grants([]string{"files:write"}) {
		t.Fatalf("token scopes %q", tok.Scopes)
	}
}

// The redirect listener answers only the redirect of its own sign-in (a
// forged state is refused and the sign-in goes on), once.
func TestCallbackAnswersOnlyItsRequest(t *testing.T) {
	as := oauthtest.New(t, "")
	var statuses []int
	get := func(u string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
	}
	var callback string
	open := func(authURL string) error {
		u, _ := url.Parse(authURL)
		callback = u.Query().Get("redirect_uri")
		get(callback + "?code=stolen&state=forged")
		get(callback + "?code=stolen")
		get(callback + "?code=x&state=" + u.Query().Get("state") + "&state=forged")
		// the user's browser, then a replay of the same redirect
		resp, err := http.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		get(resp.Request.URL.String())
		return nil
	}
	_, tok, err := signIn(t, as, oauth.Options{Open: open})
	if err != nil || tok.AccessToken == "" {
		t.Fatalf("sign-in: %v", err)
	}
	if !slices.Equal(statuses, []int{400, 400, 400, 200, 409}) {
		t.Fatalf("the listener answered %v, want forged ones 400, the real one 200, its replay 409", statuses)
	}
	if resp, err := http.Get(callback + "?code=late"); err == nil {
		resp.Body.Close()
		t.Fatal("the listener still answers after the sign-in ended")
	}
}

// RFC 9207: a redirect naming another issuer is a mix-up, refused; one the
// server promised an iss for must carry it.
func TestIssuerInRedirect(t *testing.T) {
	as := oauthtest.New(t, "")
	as.Knobs.SendIss = true
	if _, _, err := signIn(t, as, oauth.Options{}); err != nil {
		t.Fatalf("the right iss: %v", err)
	}
	as.Knobs.IssValue = "https://evil.example"
	if _, _, err := signIn(t, as, oauth.Options{}); err == nil || !strings.Contains(err.Error(), "RFC 9207") || as.Logins != 1 {
		t.Fatalf("another iss: %v (%d logins)", err, as.Logins)
	}
}

func TestLoginRefusesForgedState(t *testing.T) {
	as := oauthtest.New(t, "")
	as.Knobs.BadState = true
	if _, _, err := signIn(t, as, oauth.Options{Wait: 2 * time.Second}); err == nil || !strings.Contains(err.Error(), "no answer") || as.Logins != 0 {
		t.Fatalf("got %v, want the forged redirect ignored", err)
	}
}

// A server that authenticates clients gets the method it supports, at
// sign-in and refresh; the secret it registered is kept with the tokens.
func TestTokenEndpointAuthMethods(t *testing.T) {
	for _, m := range []string{oauth.MethodBasic, oauth.MethodPost} {
		t.Run(m, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			as := oauthtest.New(t, "")
			as.Knobs.AuthMethods = []string{m}
			s, tok, err := signIn(t, as, oauth.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := oauth.Save(tok); err != nil {
				t.Fatal(err)
			}
			back, _ := oauth.Load(s.Resource, s.Issuer)
			if back == nil || back.Client.Secret == "" || back.Client.Method != m {
				t.Fatalf("kept client %+v", back)
			}
			if _, err := oauth.Refresh(context.Background(), http.DefaultClient, s, back); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(as.TokenAuth, []string{m, m}) {
				t.Fatalf("token requests authenticated with %v, want %s", as.TokenAuth, m)
			}
		})
	}
}

// A pre-registered client (no dynamic registration) authenticates with
// its secret; the secret is never kept.
func TestPreRegisteredClient(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	as := oauthtest.New(t, "")
	as.Knobs.NoRegistration = true
	as.Knobs.PreRegistered = [2]string{"org-client", "s3cret-value"}
	if _, _, err := signIn(t, as, oauth.Options{}); err == nil || !strings.Contains(hint.Lines(err, ""), "\nhint: pass --oauth-client-id ID") {
		t.Fatalf("without a client: %v", err)
	}
	_, tok, err := signIn(t, as, oauth.Options{ClientID: "org-client", ClientSecret: "s3cret-value"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(as.TokenAuth, []string{oauth.MethodBasic}) || tok.Client.Registered {
		t.Fatalf("authenticated with %v, client %+v", as.TokenAuth, tok.Client)
	}
	if err := oauth.Save(tok); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(state, "mcpsum", "oauth", "*.json"))
	if b, _ := os.ReadFile(files[0]); len(files) != 1 || strings.Contains(string(b), "s3cret-value") {
		t.Fatalf("the pre-registered secret was kept: %s", b)
	}
}

// Client ID Metadata Documents: the document's URL is the client id when
// the server supports them (dynamic registration stays the fallback);
// a server that accepts only them needs the URL configured.
func TestClientIDMetadataDocument(t *testing.T) {
	docs := http.NewServeMux()
	docSrv := httptest.NewServer(docs)
	defer docSrv.Close()
	docURL := docSrv.URL + "/mcpsum-client.json"
	docs.HandleFunc("/mcpsum-client.json", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "mcpsum", "redirect_uris": []string{"http://127.0.0.1/callback"},
			"grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	})
	as := oauthtest.New(t, "")
	as.Knobs.CIMD = true
	if _, _, err := signIn(t, as, oauth.Options{MetadataURL: docURL}); err != nil {
		t.Fatal(err)
	}
	if got := as.AuthRequests[0].Get("client_id"); got != docURL {
		t.Fatalf("client_id %q, want the document's URL", got)
	}
	if _, _, err := signIn(t, as, oauth.Options{}); err != nil || as.AuthRequests[1].Get("client_id") != "mcpsum-test-client" {
		t.Fatalf("without a document URL, registration: %v", err)
	}
	as.Knobs.NoRegistration = true
	if _, _, err := signIn(t, as, oauth.Options{}); err == nil || !strings.Contains(hint.Lines(err, ""), "\nhint: pass --oauth-client-metadata-url URL") {
		t.Fatalf("a CIMD-only server without a document URL: %v", err)
	}
	for _, bad := range []string{"http://docs.example/c.json", docSrv.URL, "https://docs.example/c.json#x"} {
		if _, _, err := signIn(t, as, oauth.Options{MetadataURL: bad}); err == nil || !strings.Contains(err.Error(), "client metadata document URL") {
			t.Errorf("document URL %s: %v", bad, err)
		}
	}
}

// A registration answer that moves the redirect URIs elsewhere is refused
// before the browser opens.
func TestRegistrationRedirectsDiffer(t *testing.T) {
	as := oauthtest.New(t, "")
	as.Knobs.RegisteredRedirects = []string{"https://evil.example/cb"}
	opened := false
	_, _, err := signIn(t, as, oauth.Options{Open: func(string) error { opened = true; return nil }})
	if err == nil || !strings.Contains(err.Error(), "registered the redirect URIs") || opened {
		t.Fatalf("got %v (browser opened: %v)", err, opened)
	}
}

func TestChallenge(t *testing.T) {
	c := oauth.ParseChallenge(`Bearer realm="x", error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource"`)
	if c.Metadata != "https://h/.well-known/oauth-protected-resource" || c.Scope != "a b" || c.Error != "insufficient_scope" || !c.Bearer ||
		!slices.Equal(c.Scopes(), []string{"a", "b"}) {
		t.Fatalf("%+v", c)
	}
	if c := oauth.ParseChallenge(`Basic realm="x"`); c.Metadata != "" || c.Bearer {
		t.Fatal("a Basic challenge gave metadata")
	}
}
