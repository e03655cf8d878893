package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Token is what mcpsum keeps of a sign-in. It is bound to Issuer and
// Resource: it is kept under them (Load), asked for with resource =
// Resource, and sent only to URLs Resource covers (For).
type Token struct {
	Issuer, Resource string
	Scopes           []string // granted (the token response's scope), else asked for
	Client           Client
	AccessToken      string
	RefreshToken     string
	Expiry           time.Time // zero: unknown
	// StepUp are scopes a server asked for beyond Scopes (a call refused
	// with insufficient_scope where no browser can be opened): the next
	// sign-in asks for them too.
	StepUp []string
}

// Valid reports a token that can be sent now (a minute of margin).
func (t *Token) Valid(now time.Time) bool {
	return t != nil && t.AccessToken != "" && (t.Expiry.IsZero() || now.Add(time.Minute).Before(t.Expiry))
}

// For reports whether t may be sent to serverURL: its resource covers it
// (netrule.ResourceCovers). Nothing else gets it.
func (t *Token) For(serverURL string) bool {
	return t != nil && netrule.ResourceCovers(t.Resource, serverURL)
}

// Grants reports whether t was granted every scope of want.
func (t *Token) Grants(want []string) bool {
	for _, s := range want {
		if !slices.Contains(t.Scopes, s) {
			return false
		}
	}
	return true
}

// Options of an interactive sign-in.
type Options struct {
	// Open shows the user the authorization URL (print it, start a browser
	// with it as one argument). Required.
	Open func(authURL string) error
	// Wait bounds the whole sign-in (0: 5 minutes); the redirect listener
	// answers nothing after it.
	Wait time.Duration
	// ClientID and ClientSecret are a client the user registered with the
	// authorization server beforehand (the secret from the environment;
	// "" for a public client). Empty: see MetadataURL, then registration.
	ClientID, ClientSecret string
	// MetadataURL is a Client ID Metadata Document, used as the client id
	// when the authorization server supports them.
	MetadataURL string
}

// RedirectPath is the path of the loopback redirect URI
// (http://127.0.0.1:PORT/callback; any port, RFC 8252 §7.3).
const RedirectPath = "/callback"

// Login runs the authorization code grant with PKCE (S256) and the
// resource indicator: a loopback redirect listener on 127.0.0.1 that
// answers only this sign-in's redirect (its state, and its issuer per RFC
// 9207), once, within o.Wait; the client (pre-registered, a Client ID
// Metadata Document, or dynamic registration); the user's consent through
// Open; the code exchange with the client authentication the server
// supports.
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
	redirect := "http://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + RedirectPath
	cl, err := chooseClient(ctx, c, s, o, redirect)
	if err != nil {
		return nil, err
	}
	verifier, state := random(), random()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {cl.ID},
		"redirect_uri":          {redirect},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"state":                 {state},
		"resource":              {s.Resource},
	}
	if scopes := s.requestScopes(); len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	sep := "?"
	if strings.Contains(s.AuthEndpoint, "?") {
		sep = "&"
	}
	cb := newCallback(state)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: cb}
	go srv.Serve(l)
	defer srv.Close()
	if err := o.Open(s.AuthEndpoint + sep + q.Encode()); err != nil {
		return nil, err
	}
	var answer url.Values
	select {
	case answer = <-cb.got:
	case <-ctx.Done():
		return nil, fmt.Errorf("sign-in to %s: no answer from the browser within %s", termtext.Quoted(s.Issuer, 200), o.Wait)
	}
	code, err := s.checkAnswer(answer)
	if err != nil {
		return nil, err
	}
	t, err := tokenRequest(ctx, c, s, cl, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"resource":      {s.Resource},
	})
	if err != nil {
		return nil, err
	}
	if t.Scopes == nil {
		t.Scopes = slices.Clone(s.Scopes)
	}
	return t, nil
}

// requestScopes are the scopes to ask for: s.Scopes, and offline_access
// when the authorization server lists it (SEP-2207: mcpsum wants a refresh
// token, so verify and the proxy need no browser).
func (s *Server) requestScopes() []string {
	out := slices.Clone(s.Scopes)
	if len(out) > 0 && slices.Contains(s.ASScopes, "offline_access") && !slices.Contains(out, "offline_access") {
		out = append(out, "offline_access")
	}
	return out
}

// checkAnswer reads the redirect the callback took: an issuer that is not
// the one signed in with is a mix-up (RFC 9207 §2.4), and so is a missing
// one when the server promised to send it.
func (s *Server) checkAnswer(q url.Values) (string, error) {
	iss, hasIss := q["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != s.Issuer):
		return "", fmt.Errorf("sign-in: the redirect names the issuer %s, not %s, which this sign-in went to (RFC 9207: a mix-up of authorization servers); refused", termtext.Quoted(strings.Join(iss, " "), 200), termtext.Quoted(s.Issuer, 200))
	case !hasIss && s.IssParam:
		return "", fmt.Errorf("sign-in: %s promises the iss parameter (RFC 9207) and the redirect lacks it; refused", termtext.Quoted(s.Issuer, 200))
	}
	if e := q.Get("error"); e != "" {
		return "", fmt.Errorf("sign-in refused by the authorization server: %s %s", termtext.Quoted(e, 200), termtext.Quoted(q.Get("error_description"), 200))
	}
	code := q["code"]
	if len(code) != 1 || code[0] == "" {
		return "", errors.New("sign-in: the redirect carries no code")
	}
	return code[0], nil
}

// Refresh trades t's refresh token for a new access token, authenticating
// as t.Client (a pre-registered client's secret filled in by the caller).
func Refresh(ctx context.Context, c *http.Client, s *Server, t *Token) (*Token, error) {
	if t.RefreshToken == "" {
		return nil, errors.New("no refresh token")
	}
	n, err := tokenRequest(ctx, c, s, t.Client, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {t.RefreshToken},
		"resource":      {s.Resource},
	})
	if err != nil {
		return nil, err
	}
	if n.RefreshToken == "" { // the server kept the old one
		n.RefreshToken = t.RefreshToken
	}
	if n.Scopes == nil {
		n.Scopes = t.Scopes
	}
	n.StepUp = t.StepUp
	return n, nil
}

// tokenRequest posts form to the token endpoint, authenticated as cl.
func tokenRequest(ctx context.Context, c *http.Client, s *Server, cl Client, form url.Values) (*Token, error) {
	cl.authenticate(form)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if cl.Method == MethodBasic {
		req.SetBasicAuth(url.QueryEscape(cl.ID), url.QueryEscape(cl.Secret)) // RFC 6749 §2.3.1
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	f, err := readJSON(resp, "access_token", "token_type", "expires_in", "refresh_token", "scope")
	if err != nil {
		return nil, fmt.Errorf("token request (%s): %w", form.Get("grant_type"), err)
	}
	t := &Token{Issuer: s.Issuer, Resource: s.Resource, Client: cl}
	t.AccessToken, _ = jsonscan.String(f[0])
	typ, _ := jsonscan.String(f[1])
	if t.AccessToken == "" || !strings.EqualFold(typ, "bearer") {
		return nil, fmt.Errorf("token request: the answer holds no bearer access_token (token_type %s)", termtext.Quoted(typ, 200))
	}
	if err := netrule.HeaderValue(t.AccessToken); err != nil {
		return nil, fmt.Errorf("token request: the access token from %s %v", termtext.Quoted(s.Issuer, 200), err)
	}
	if f[2] != nil {
		if secs, err := strconv.ParseInt(string(f[2]), 10, 64); err == nil && secs > 0 {
			t.Expiry = time.Now().Add(time.Duration(secs) * time.Second)
		}
	}
	t.RefreshToken, _ = jsonscan.String(f[3])
	if sc, ok := jsonscan.String(f[4]); ok {
		t.Scopes = strings.Fields(sc)
	}
	return t, nil
}

// random is 32 bytes of crypto randomness, base64url (a PKCE verifier, a state).
func random() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
