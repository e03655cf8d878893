package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"github.com/mcpsum/mcpsum/internal/hint"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// serverOf is the Server a discovery of the scripted AS finds.
func serverOf(a *scriptedAS) *Server {
	u := a.url()
	return &Server{Resource: u + "/mcp", Issuer: u + "/as", AuthEndpoint: u + "/as/authorize?tenant=t1",
		TokenEndpoint: u + "/as/token", RegEndpoint: u + "/as/register", Scopes: []string{"mcp:read", "mcp:write"}}
}

// consent plays a browser whose user consents: it follows the
// authorization URL's redirect_uri with the code and state the AS would
// give, and records the URL it was shown.
func consent(code string, shown *url.URL) func(string) error {
	return func(raw string) error {
		u, err := url.Parse(raw)
		if err != nil {
			return err
		}
		*shown = *u
		q := u.Query()
		back := q.Get("redirect_uri") + "?" + url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		resp, err := http.Get(back)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

// s256 is the PKCE S256 challenge of a verifier (RFC 7636 §4.2), written
// out here rather than taken from Login.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// The authorization code grant: registration (public client, the loopback
// redirect, both grants), the authorization URL (PKCE S256 over the
// verifier sent later, state, the resource indicator, scopes, the
// endpoint's own query kept), the code exchange with the verifier and the
// resource; the token's expiry from expires_in.
func TestLoginFlow(t *testing.T) {
	a := newAS(t)
	a.json("/as/register", http.StatusCreated, `{"client_id":"c-1"}`)
	a.json("/as/token", 200, `{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-1"}`)
	s := serverOf(a)
	var shown url.URL
	before := time.Now()
	tok, err := Login(context.Background(), http.DefaultClient, s, Options{Open: consent("code-1", &shown), Wait: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "at-1" || tok.RefreshToken != "rt-1" || tok.Client.ID != "c-1" || tok.Issuer != s.Issuer || tok.Resource != s.Resource {
		t.Fatalf("token %+v", tok)
	}
	if d := tok.Expiry.Sub(before); d < 59*time.Minute || d > 61*time.Minute+time.Minute {
		t.Fatalf("expiry in %s", d)
	}
	q := shown.Query()
	if shown.Path != "/as/authorize" || q.Get("tenant") != "t1" || q.Get("response_type") != "code" || q.Get("client_id") != "c-1" ||
		q.Get("code_challenge_method") != "S256" || q.Get("resource") != s.Resource || q.Get("scope") != "mcp:read mcp:write" || len(q.Get("state")) < 40 {
		t.Fatalf("authorization URL %s", shown.String())
	}
	if !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || !strings.HasSuffix(q.Get("redirect_uri"), "/callback") {
		t.Fatalf("redirect_uri %q", q.Get("redirect_uri"))
	}
	reg := a.bodies["/as/register"][0]
	for _, want := range []string{`"token_endpoint_auth_method":"none"`, `"authorization_code"`, `"refresh_token"`, q.Get("redirect_uri")} {
		if !strings.Contains(reg, want) {
			t.Errorf("registration %s lacks %s", reg, want)
		}
	}
	form, _ := url.ParseQuery(a.bodies["/as/token"][0])
	if form.Get("grant_type") != "authorization_code" || form.Get("code") != "code-1" || form.Get("redirect_uri") != q.Get("redirect_uri") ||
		form.Get("client_id") != "c-1" || form.Get("resource") != s.Resource {
		t.Fatalf("token request %v", form)
	}
	if s256(form.Get("code_verifier")) != q.Get("code_challenge") {
		t.Fatal("the code_verifier does not hash to the code_challenge")
	}
}

// Login fails, saying why, when: the AS offers no registration, the
// registration has no client_id, the browser cannot be opened, the
// redirect carries an error or no code, the token answer is not a bearer
// token, or the user never answers within Wait.
func TestLoginFails(t *testing.T) {
	redirectWith := func(params url.Values) func(string) error {
		return func(raw string) error {
			u, _ := url.Parse(raw)
			params.Set("state", u.Query().Get("state"))
			resp, err := http.Get(u.Query().Get("redirect_uri") + "?" + params.Encode())
			if err == nil {
				resp.Body.Close()
			}
			return err
		}
	}
	var shown url.URL
	for name, c := range map[string]struct {
		edit func(a *scriptedAS, s *Server)
		open func(string) error
		wait time.Duration
		want string
	}{
		"no registration":  {edit: func(a *scriptedAS, s *Server) { s.RegEndpoint = "" }, want: "offers no dynamic client registration"},
		"no client_id":     {edit: func(a *scriptedAS, s *Server) { a.json("/as/register", 201, `{"client_secret":"x"}`) }, want: "no client_id"},
		"registration 400": {edit: func(a *scriptedAS, s *Server) { a.json("/as/register", 400, `{"error":"invalid_redirect_uri"}`) }, want: "HTTP 400"},
		"open fails":       {open: func(string) error { return errors.New("no browser") }, want: "no browser"},
		"access denied":    {open: redirectWith(url.Values{"error": {"access_denied"}, "error_description": {"the user said no"}}), want: "access_denied"},
		"no code":          {open: redirectWith(url.Values{}), want: "no code"},
		"not bearer":       {edit: func(a *scriptedAS, s *Server) { a.json("/as/token", 200, `{"access_token":"x","token_type":"mac"}`) }, want: "no bearer access_token"},
		"no token":         {edit: func(a *scriptedAS, s *Server) { a.json("/as/token", 200, `{"token_type":"Bearer"}`) }, want: "no bearer access_token"},
		"token refused":    {edit: func(a *scriptedAS, s *Server) { a.json("/as/token", 400, `{"error":"invalid_grant"}`) }, want: "invalid_grant"},
		"user away":        {open: func(string) error { return nil }, wait: 50 * time.Millisecond, want: "no answer from the browser"},
	} {
		t.Run(name, func(t *testing.T) {
			a := newAS(t)
			a.json("/as/register", http.StatusCreated, `{"client_id":"c-1"}`)
			a.json("/as/token", 200, `{"access_token":"at-1","token_type":"bearer"}`)
			s := serverOf(a)
			if c.edit != nil {
				c.edit(a, s)
			}
			open := c.open
			if open == nil {
				open = consent("code-1", &shown)
			}
			wait := c.wait
			if wait == 0 {
				wait = 10 * time.Second
			}
			_, err := Login(context.Background(), http.DefaultClient, s, Options{Open: open, Wait: wait})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// The loopback listener answers only its callback, and only once.
func TestLoginCallbackOnce(t *testing.T) {
	a := newAS(t)
	a.json("/as/register", http.StatusCreated, `{"client_id":"c-1"}`)
	a.json("/as/token", 200, `{"access_token":"at-1","token_type":"bearer"}`)
	var codes []int
	open := func(raw string) error {
		u, _ := url.Parse(raw)
		redirect := u.Query().Get("redirect_uri")
		back := redirect + "?" + url.Values{"code": {"c"}, "state": {u.Query().Get("state")}}.Encode()
		for _, target := range []string{strings.TrimSuffix(redirect, "/callback") + "/other", back, back} {
			resp, err := http.Get(target)
			if err != nil {
				return err
			}
			resp.Body.Close()
			codes = append(codes, resp.StatusCode)
		}
		return nil
	}
	if _, err := Login(context.Background(), http.DefaultClient, serverOf(a), Options{Open: open, Wait: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if len(codes) != 3 || codes[0] != 404 || codes[1] != 200 || codes[2] != 409 {
		t.Fatalf("callback answers %v, want 404 elsewhere, 200 once, then 409", codes)
	}
}

// Refresh sends the refresh token, client id and resource; a server that
// issues no new refresh token keeps the old one; without a refresh token
// there is nothing to refresh.
func TestRefresh(t *testing.T) {
	a := newAS(t)
	a.json("/as/token", 200, `{"access_token":"at-2","token_type":"Bearer","expires_in":"soon"}`)
	s := serverOf(a)
	old := &Token{Issuer: s.Issuer, Resource: s.Resource, Client: Client{ID: "c-1", Method: MethodNone}, AccessToken: "at-1", RefreshToken: "rt-1"}
	n, err := Refresh(context.Background(), http.DefaultClient, s, old)
	if err != nil {
		t.Fatal(err)
	}
	if n.AccessToken != "at-2" || n.RefreshToken != "rt-1" || n.Client.ID != "c-1" || !n.Expiry.IsZero() {
		t.Fatalf("refreshed %+v", n)
	}
	form, _ := url.ParseQuery(a.bodies["/as/token"][0])
	if form.Get("grant_type") != "refresh_token" || form.Get("refresh_token") != "rt-1" || form.Get("client_id") != "c-1" || form.Get("resource") != s.Resource {
		t.Fatalf("refresh request %v", form)
	}
	a.json("/as/token", 200, `{"access_token":"at-3","token_type":"Bearer","refresh_token":"rt-2"}`)
	if n, _ = Refresh(context.Background(), http.DefaultClient, s, old); n.RefreshToken != "rt-2" {
		t.Fatalf("a rotated refresh token was not taken: %+v", n)
	}
	if _, err := Refresh(context.Background(), http.DefaultClient, s, &Token{AccessToken: "x"}); err == nil || !strings.Contains(err.Error(), "no refresh token") {
		t.Fatalf("no refresh token: %v", err)
	}
}

// A token is valid while it has an access token and more than a minute
// left (or no known expiry).
func TestTokenValid(t *testing.T) {
	now := time.Now()
	for name, c := range map[string]struct {
		tok *Token
		ok  bool
	}{
		"nil":       {nil, false},
		"empty":     {&Token{}, false},
		"no expiry": {&Token{AccessToken: "a"}, true},
		"an hour":   {&Token{AccessToken: "a", Expiry: now.Add(time.Hour)}, true},
		"30 s left": {&Token{AccessToken: "a", Expiry: now.Add(30 * time.Second)}, false},
		"expired":   {&Token{AccessToken: "a", Expiry: now.Add(-time.Hour)}, false},
	} {
		if c.tok.Valid(now) != c.ok {
			t.Errorf("%s: Valid = %v", name, !c.ok)
		}
	}
}

// Tokens are kept per (resource, issuer) in the private state folder:
// mode 0600 in a 0700 folder, read back exactly (expiry to the second);
// none kept is nil; a damaged file names itself and the way out; a file
// holding another pair's tokens is not returned.
func TestStore(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	if tok, err := Load("https://h/mcp", "https://as"); tok != nil || err != nil {
		t.Fatalf("nothing kept: %+v %v", tok, err)
	}
	exp := time.Unix(time.Now().Add(time.Hour).Unix(), 0)
	in := &Token{Issuer: "https://as", Resource: "https://h/mcp", Client: Client{ID: "c", Method: MethodNone, Registered: true},
		AccessToken: "a", RefreshToken: "r", Expiry: exp, Scopes: []string{"mcp:read"}, StepUp: []string{"mcp:write"}}
	if err := Save(in); err != nil {
		t.Fatal(err)
	}
	out, err := Load(in.Resource, in.Issuer)
	if err != nil || out == nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("Load: %+v %v, want %+v", out, err, in)
	}
	path, _ := tokenPath(in.Resource, in.Issuer)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("token folder mode: %v %v", fi.Mode(), err)
	}
	if other, _ := Load(in.Resource, "https://other-as"); other != nil {
		t.Fatal("another issuer's tokens were returned")
	}
	noExp := &Token{Issuer: "https://as", Resource: "https://h/other", AccessToken: "a"}
	Save(noExp)
	if back, _ := Load(noExp.Resource, noExp.Issuer); back == nil || !back.Expiry.IsZero() {
		t.Fatalf("no expiry: %+v", back)
	}
	// a file that claims another pair (copied over) is not used
	otherPath, _ := tokenPath(noExp.Resource, noExp.Issuer)
	data, _ := os.ReadFile(path)
	os.WriteFile(otherPath, data, 0o600)
	if back, err := Load(noExp.Resource, noExp.Issuer); back != nil || err != nil {
		t.Fatalf("a file of another pair: %+v %v", back, err)
	}
	os.WriteFile(path, []byte(`{"issuer":"https://as","issuer":"x"}`), 0o600)
	if _, err := Load(in.Resource, in.Issuer); err == nil || !strings.Contains(hint.Lines(err, ""), "damaged\nhint: delete it") {
		t.Fatalf("damaged file: %v", err)
	}
}
