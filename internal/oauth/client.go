package oauth

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/jsonscan"
	"github.com/mcpsum/mcpsum/internal/termtext"
)

// Client is how mcpsum identifies itself to an authorization server.
type Client struct {
	ID     string
	Secret string // "" for a public client
	Method string // the token endpoint's client authentication: MethodNone, MethodBasic, MethodPost
	// Registered: mcpsum registered it (RFC 7591), so its secret is kept
	// with the tokens; a pre-registered client's secret comes from the
	// environment each time and is never kept.
	Registered bool
}

// Client authentication methods at the token endpoint (RFC 7591 §2).
const (
	MethodNone  = "none"
	MethodBasic = "client_secret_basic"
	MethodPost  = "client_secret_post"
)

// authenticate puts the client's id (and, for client_secret_post, its
// secret) in a token request's form; client_secret_basic goes in the
// Authorization header instead.
func (c Client) authenticate(form url.Values) {
	form.Set("client_id", c.ID)
	if c.Method == MethodPost {
		form.Set("client_secret", c.Secret)
	}
}

// chooseClient picks the client of a sign-in: a pre-registered one (o), a
// Client ID Metadata Document (o.MetadataURL, when s supports them), or one
// mcpsum registers dynamically (RFC 7591).
func chooseClient(ctx context.Context, c *http.Client, s *Server, o Options, redirect string) (Client, error) {
	switch {
	case o.ClientID != "":
		if o.ClientSecret == "" {
			return Client{ID: o.ClientID, Method: MethodNone}, nil
		}
		m, err := s.secretMethod()
		return Client{ID: o.ClientID, Secret: o.ClientSecret, Method: m}, err
	case s.CIMD && o.MetadataURL != "":
		if err := CheckMetadataURL(o.MetadataURL); err != nil {
			return Client{}, err
		}
		return Client{ID: o.MetadataURL, Method: MethodNone}, nil
	case s.RegEndpoint != "":
		return register(ctx, c, s, redirect)
	case s.CIMD:
		return Client{}, hint.Errorf("pass --oauth-client-metadata-url URL (or set MCPSUM_OAUTH_CLIENT_METADATA_URL) naming one your organisation serves (docs/remote.md shows it), or --oauth-client-id ID of a client registered with it",
			"authorization server %s accepts only clients described by a Client ID Metadata Document", termtext.Quoted(s.Issuer, 200))
	}
	return Client{}, hint.Errorf("pass --oauth-client-id ID (and --oauth-client-secret-env VAR for a confidential client) of a client registered with it for the redirect URI http://127.0.0.1"+RedirectPath+", or a token you obtained yourself with --header Authorization=VAR",
		"authorization server %s offers no dynamic client registration (registration_endpoint)", termtext.Quoted(s.Issuer, 200))
}

// secretMethod is how a client with a secret authenticates at s's token
// endpoint: client_secret_basic when offered (the default when the
// metadata does not say), else client_secret_post.
func (s *Server) secretMethod() (string, error) {
	switch {
	case s.AuthMethods == nil || slices.Contains(s.AuthMethods, MethodBasic):
		return MethodBasic, nil
	case slices.Contains(s.AuthMethods, MethodPost):
		return MethodPost, nil
	}
	return "", fmt.Errorf("authorization server %s authenticates clients only with %s; mcpsum supports none, client_secret_basic and client_secret_post", termtext.Quoted(s.Issuer, 200), termtext.Quoted(strings.Join(s.AuthMethods, " "), 200))
}

// CheckMetadataURL checks a Client ID Metadata Document's URL (the client
// id it stands for): the remote-URL rule (https, or http to this machine),
// and a path, as the draft asks.
func CheckMetadataURL(raw string) error {
	u, err := checkURL("client metadata document URL", raw)
	if err != nil {
		return err
	}
	if u.Path == "" || u.Path == "/" {
		return fmt.Errorf("client metadata document URL %s refused: it needs a path (the document's own URL is the client id)", termtext.Quoted(raw, 200))
	}
	return nil
}

// register obtains a client by dynamic client registration (RFC 7591): a
// native client whose one redirect URI is the loopback listener, asking
// for the token endpoint authentication the server offers (none when it
// does). The registered metadata the server answers with must keep that
// redirect URI: a server that registered others would send the code
// elsewhere.
func register(ctx context.Context, c *http.Client, s *Server, redirect string) (Client, error) {
	method := MethodNone
	if s.AuthMethods != nil && !slices.Contains(s.AuthMethods, MethodNone) {
		var err error
		if method, err = s.secretMethod(); err != nil {
			return Client{}, err
		}
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                "mcpsum",
		"application_type":           "native",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.RegEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return Client{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("client registration: %w", err)
	}
	if resp.StatusCode == http.StatusCreated {
		resp.StatusCode = http.StatusOK
	}
	f, err := readJSON(resp, "client_id", "client_secret", "token_endpoint_auth_method", "redirect_uris")
	if err != nil {
		return Client{}, fmt.Errorf("client registration: %w", err)
	}
	cl := Client{Method: method, Registered: true}
	var ok bool
	if cl.ID, ok = jsonscan.String(f[0]); !ok || cl.ID == "" {
		return Client{}, errors.New("client registration: the answer has no client_id")
	}
	cl.Secret, _ = jsonscan.String(f[1])
	if m, ok := jsonscan.String(f[2]); ok && m != "" {
		cl.Method = m
	}
	switch {
	case cl.Method != MethodNone && cl.Method != MethodBasic && cl.Method != MethodPost:
		return Client{}, fmt.Errorf("client registration: %s registered mcpsum with the client authentication %s, which mcpsum does not support", termtext.Quoted(s.Issuer, 200), termtext.Quoted(cl.Method, 80))
	case cl.Method != MethodNone && cl.Secret == "":
		return Client{}, fmt.Errorf("client registration: %s registered a client authenticating with %s but gave no client_secret", termtext.Quoted(s.Issuer, 200), cl.Method)
	}
	if f[3] != nil {
		if uris, ok := jsonscan.Strings(f[3]); !ok || !slices.Equal(uris, []string{redirect}) {
			return Client{}, fmt.Errorf("client registration: %s registered the redirect URIs %s, not mcpsum's %s; refused (the code would go elsewhere)", termtext.Quoted(s.Issuer, 200), termtext.Quoted(string(f[3]), 200), redirect)
		}
	}
	return cl, nil
}

// callback is the redirect listener's handler: it answers only the
// redirect that carries this sign-in's state (one state parameter), and
// only once; anything else gets an error page and the sign-in goes on
// waiting.
type callback struct {
	state    string
	answered atomic.Bool
	got      chan url.Values
}

func newCallback(state string) *callback {
	return &callback{state: state, got: make(chan url.Values, 1)}
}

func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != RedirectPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	st := q["state"]
	if len(st) != 1 || subtle.ConstantTimeCompare([]byte(st[0]), []byte(cb.state)) != 1 {
		http.Error(w, "mcpsum: this is not the sign-in mcpsum is waiting for (its state differs); ignored", http.StatusBadRequest)
		return
	}
	if !cb.answered.CompareAndSwap(false, true) {
		http.Error(w, "mcpsum: this sign-in was answered already", http.StatusConflict)
		return
	}
	cb.got <- q
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "mcpsum: the answer arrived; return to your terminal. You can close this tab.")
}
