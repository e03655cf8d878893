package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Token is what mcpsum keeps of a sign-in.
type Token struct {
	Issuer, Resource string
	ClientID         string
	AccessToken      string
	RefreshToken     string
	Expiry           time.Time // zero: unknown
}

// Valid reports a token that can be sent now (a minute of margin).
func (t *Token) Valid(now time.Time) bool {
	return t != nil && t.AccessToken != "" && (t.Expiry.IsZero() || now.Add(time.Minute).Before(t.Expiry))
}

// Options of an interactive sign-in.
type Options struct {
	// Open shows the user the authorization URL (print it, start a browser
	// with it as one argument). Required.
	Open func(authURL string) error
	// Wait bounds the whole sign-in (0: 5 minutes).
	Wait time.Duration
}

// Login runs the authorization code grant with PKCE (S256) and the
// resource indicator: a loopback redirect listener on 127.0.0.1, dynamic
// client registration, the user's consent through Open, the code exchange.
func Login(ctx context.Context, c *http.Client, s *Server, o Options) (*Token, error) {
	if o.Wait <= 0 {
		o.Wait = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Wait)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sign-in: the redirect listener: %w", err)
	}
	defer l.Close()
	redirect := "http://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + "/callback"
	clientID, err := register(ctx, c, s, redirect)
	if err != nil {
		return nil, err
	}
	verifier, state := random(), random()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {clientID},
		"redirect_uri":          {redirect},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {s.Resource},
	}
	if len(s.Scopes) > 0 {
		q.Set("scope", strings.Join(s.Scopes, " "))
	}
	sep := "?"
	if strings.Contains(s.AuthEndpoint, "?") {
		sep = "&"
	}
	got := make(chan url.Values, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		select {
		case got <- r.URL.Query():
			fmt.Fprintln(w, "mcpsum: signed in; you can close this tab.")
		default:
			http.Error(w, "already answered", http.StatusConflict)
		}
	})}
	go srv.Serve(l)
	defer srv.Close()
	if err := o.Open(s.AuthEndpoint + sep + q.Encode()); err != nil {
		return nil, err
	}
	var cb url.Values
	select {
	case cb = <-got:
	case <-ctx.Done():
		return nil, fmt.Errorf("sign-in to %s: no answer from the browser within %s", termtext.Quoted(s.Issuer, 200), o.Wait)
	}
	if cb.Get("state") != state {
		return nil, errors.New("sign-in: the redirect's state does not match (a forged or stale redirect); refused")
	}
	if e := cb.Get("error"); e != "" {
		return nil, fmt.Errorf("sign-in refused by the authorization server: %s %s", termtext.Quoted(e, 200), termtext.Quoted(cb.Get("error_description"), 200))
	}
	if cb.Get("code") == "" {
		return nil, errors.New("sign-in: the redirect carries no code")
	}
	t, err := tokenRequest(ctx, c, s, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {cb.Get("code")},
		"redirect_uri":  {redirect},
		"client_id":     {clientID},
		"code_verifier": {verifier},
		"resource":      {s.Resource},
	})
	if err != nil {
		return nil, err
	}
	t.ClientID = clientID
	return t, nil
}

// Refresh trades t's refresh token for a new access token.
func Refresh(ctx context.Context, c *http.Client, s *Server, t *Token) (*Token, error) {
	if t.RefreshToken == "" {
		return nil, errors.New("no refresh token")
	}
	n, err := tokenRequest(ctx, c, s, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {t.RefreshToken},
		"client_id":     {t.ClientID},
		"resource":      {s.Resource},
	})
	if err != nil {
		return nil, err
	}
	n.ClientID = t.ClientID
	if n.RefreshToken == "" { // the server kept the old one
		n.RefreshToken = t.RefreshToken
	}
	return n, nil
}

// register obtains a client id by dynamic client registration (RFC 7591).
func register(ctx context.Context, c *http.Client, s *Server, redirect string) (string, error) {
	if s.RegEndpoint == "" {
		return "", hint.Errorf("obtain a token yourself and pass it with --header Authorization=VAR",
			"authorization server %s offers no dynamic client registration (registration_endpoint), so mcpsum cannot sign in", termtext.Quoted(s.Issuer, 200))
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "mcpsum",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.RegEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("client registration: %w", err)
	}
	if resp.StatusCode == http.StatusCreated {
		resp.StatusCode = http.StatusOK
	}
	f, err := readJSON(resp, "client_id")
	if err != nil {
		return "", fmt.Errorf("client registration: %w", err)
	}
	id, ok := jsonscan.String(f[0])
	if !ok || id == "" {
		return "", errors.New("client registration: the answer has no client_id")
	}
	return id, nil
}

func tokenRequest(ctx context.Context, c *http.Client, s *Server, form url.Values) (*Token, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	f, err := readJSON(resp, "access_token", "token_type", "expires_in", "refresh_token")
	if err != nil {
		return nil, fmt.Errorf("token request (%s): %w", form.Get("grant_type"), err)
	}
	t := &Token{Issuer: s.Issuer, Resource: s.Resource}
	t.AccessToken, _ = jsonscan.String(f[0])
	typ, _ := jsonscan.String(f[1])
	if t.AccessToken == "" || !strings.EqualFold(typ, "bearer") {
		return nil, fmt.Errorf("token request: the answer holds no bearer access_token (token_type %s)", termtext.Quoted(typ, 200))
	}
	if f[2] != nil {
		if secs, err := strconv.ParseInt(string(f[2]), 10, 64); err == nil && secs > 0 {
			t.Expiry = time.Now().Add(time.Duration(secs) * time.Second)
		}
	}
	t.RefreshToken, _ = jsonscan.String(f[3])
	return t, nil
}

// random is 32 bytes of crypto randomness, base64url (a PKCE verifier, a state).
func random() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
