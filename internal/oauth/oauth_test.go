package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

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

func challengeOf(t *testing.T, as *oauthtest.Server) string {
	t.Helper()
	resp, err := http.Get(as.Resource)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the resource answered %d without a token", resp.StatusCode)
	}
	meta, _ := oauth.Challenge(resp.Header.Get("WWW-Authenticate"))
	return meta
}

func TestLoginAndRefresh(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	as := oauthtest.New(t, "")
	ctx := context.Background()
	s, err := oauth.Discover(ctx, http.DefaultClient, as.Resource, challengeOf(t, as))
	if err != nil {
		t.Fatal(err)
	}
	if s.Issuer != as.Issuer() || s.Resource != as.Resource {
		t.Fatalf("discovered %+v", s)
	}
	tok, err := oauth.Login(ctx, http.DefaultClient, s, oauth.Options{Open: browser, Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken == "" || tok.RefreshToken == "" || !tok.Valid(time.Now()) || as.Logins != 1 {
		t.Fatalf("token %+v after %d logins", tok, as.Logins)
	}
	if err := oauth.Save(tok); err != nil {
		t.Fatal(err)
	}
	back, err := oauth.Load(s.Resource, s.Issuer)
	if err != nil || back == nil || back.AccessToken != tok.AccessToken || back.ClientID != "mcpsum-test-client" {
		t.Fatalf("Load: %+v %v", back, err)
	}
	if other, _ := oauth.Load(s.Resource, "https://other.example"); other != nil {
		t.Fatal("tokens of one issuer were returned for another")
	}
	n, err := oauth.Refresh(ctx, http.DefaultClient, s, back)
	if err != nil || n.AccessToken == tok.AccessToken || as.Refreshs != 1 {
		t.Fatalf("Refresh: %+v %v", n, err)
	}
}

func TestDiscoveryRefusesHostileMetadata(t *testing.T) {
	ctx := context.Background()
	for name, c := range map[string]struct {
		set  func(as *oauthtest.Server)
		meta string
		want string
	}{
		"issuer mismatch":     {set: func(as *oauthtest.Server) { as.IssuerOverride = "https://evil.example" }, want: "differs from"},
		"no S256":             {set: func(as *oauthtest.Server) { as.NoS256 = true }, want: "S256"},
		"javascript endpoint": {set: func(as *oauthtest.Server) { as.AuthEndpoint = "javascript:alert(1)" }, want: "authorization_endpoint"},
		"plain http endpoint": {set: func(as *oauthtest.Server) { as.AuthEndpoint = "http://login.example.com/authorize" }, want: "use https"},
		"shell in endpoint":   {set: func(as *oauthtest.Server) { as.AuthEndpoint = "https://x.example/$(touch /tmp/pwned)" }, want: "authorization_endpoint"},
		"metadata elsewhere":  {meta: "https://evil.example/.well-known/oauth-protected-resource", want: "not on the server's origin"},
	} {
		t.Run(name, func(t *testing.T) {
			as := oauthtest.New(t, "")
			if c.set != nil {
				c.set(as)
			}
			_, err := oauth.Discover(ctx, http.DefaultClient, as.Resource, c.meta)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

func TestLoginRefusesForgedState(t *testing.T) {
	as := oauthtest.New(t, "")
	as.BadState = true
	s, err := oauth.Discover(context.Background(), http.DefaultClient, as.Resource, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.Login(context.Background(), http.DefaultClient, s, oauth.Options{Open: browser, Wait: 10 * time.Second}); err == nil || !strings.Contains(err.Error(), "state") {
		t.Fatalf("got %v, want a forged state refused", err)
	}
}

func TestChallenge(t *testing.T) {
	m, s := oauth.Challenge(`Bearer realm="x", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource"`)
	if m != "https://h/.well-known/oauth-protected-resource" || s != "a b" {
		t.Fatalf("%q %q", m, s)
	}
	if m, _ := oauth.Challenge(`Basic realm="x"`); m != "" {
		t.Fatal("a Basic challenge gave metadata")
	}
}
