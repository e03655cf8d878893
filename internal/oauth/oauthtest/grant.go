package oauthtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// register is RFC 7591: a public client unless the server authenticates
// clients (Knobs.AuthMethods), then one with a secret and the first method.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		Method       string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	id := "mcpsum-test-client"
	c := client{method: "none", redirects: req.RedirectURIs}
	if m := s.Knobs.AuthMethods; m != nil && !slices.Contains(m, "none") {
		id, c.secret, c.method = "mcpsum-test-client-"+token(), token(), m[0]
	}
	if s.Knobs.RegisteredRedirects != nil {
		c.redirects = s.Knobs.RegisteredRedirects
	}
	s.clients[id] = c
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	ans := map[string]any{"client_id": id, "redirect_uris": c.redirects, "token_endpoint_auth_method": c.method}
	if c.secret != "" {
		ans["client_secret"] = c.secret
	}
	json.NewEncoder(w).Encode(ans)
}

// clientOf finds a client: registered, pre-registered, or (Knobs.CIMD) an
// http(s) URL whose document is fetched and must name itself.
func (s *Server) clientOf(id string) (client, bool) {
	if c, ok := s.clients[id]; ok {
		return c, true
	}
	if p := s.Knobs.PreRegistered; p[0] != "" && id == p[0] {
		return client{secret: p[1], method: "client_secret_basic"}, true
	}
	if !s.Knobs.CIMD || !(strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://127.0.0.1")) {
		return client{}, false
	}
	resp, err := http.Get(id)
	if err != nil {
		return client{}, false
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if resp.StatusCode != 200 || json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&doc) != nil || doc.ClientID != id {
		return client{}, false
	}
	return client{method: "none", redirects: doc.RedirectURIs}, true
}

// redirectAllowed matches a redirect URI against a client's, any port for
// a loopback one (RFC 8252 §7.3).
func redirectAllowed(c client, uri string) bool {
	if c.redirects == nil { // pre-registered: any loopback callback
		u, err := url.Parse(uri)
		return err == nil && u.Hostname() == "127.0.0.1"
	}
	u, err := url.Parse(uri)
	if err != nil {
		return false
	}
	for _, r := range c.redirects {
		ru, err := url.Parse(r)
		if err != nil {
			continue
		}
		if ru.Hostname() == "127.0.0.1" && u.Hostname() == "127.0.0.1" && ru.Path == u.Path {
			return true
		}
		if r == uri {
			return true
		}
	}
	return false
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.AuthRequests = append(s.AuthRequests, q)
	c, ok := s.clientOf(q.Get("client_id"))
	if !ok || !redirectAllowed(c, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect URI", http.StatusBadRequest) // never redirect to an unknown URI
		return
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != s.resourceID() || q.Get("response_type") != "code" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := token()
	s.codes[code] = grant{challenge: q.Get("code_challenge"), resource: q.Get("resource"), client: q.Get("client_id"), scopes: strings.Fields(q.Get("scope"))}
	state := q.Get("state")
	if s.Knobs.BadState {
		state = "forged"
	}
	v := url.Values{"code": {code}, "state": {state}}
	if s.Knobs.SendIss {
		v.Set("iss", s.HTTP.URL+s.issuer)
		if s.Knobs.IssValue != "" {
			v.Set("iss", s.Knobs.IssValue)
		}
	}
	http.Redirect(w, r, q.Get("redirect_uri")+"?"+v.Encode(), http.StatusFound)
}

// authenticate checks a token request's client authentication and says
// which method it used.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	method := "none"
	id, secret := r.Form.Get("client_id"), r.Form.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		method = "client_secret_basic"
		id, _ = url.QueryUnescape(u)
		secret, _ = url.QueryUnescape(p)
	} else if secret != "" {
		method = "client_secret_post"
	}
	s.TokenAuth = append(s.TokenAuth, method)
	c, ok := s.clientOf(id)
	if !ok {
		return id, false
	}
	if c.method == "none" {
		return id, method == "none"
	}
	return id, method == c.method && secret == c.secret
}

func (s *Server) token(w http.ResponseWriter, r *http.Request, iss string) {
	r.ParseForm()
	id, ok := s.authenticate(r)
	if !ok {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	var g grant
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		var found bool
		g, found = s.codes[r.Form.Get("code")]
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !found || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.Form.Get("resource") != g.resource || g.client != id {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		delete(s.codes, r.Form.Get("code"))
		g.issuer = iss
		s.Logins++
	case "refresh_token":
		var found bool
		g, found = s.refresh[r.Form.Get("refresh_token")]
		if !found || g.issuer != iss || r.Form.Get("resource") != g.resource {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		s.Refreshs++
	default:
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		return
	}
	at, rt := token(), token()
	s.access[at], s.refresh[rt] = g, g
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt,
		"scope": strings.Join(g.scopes, " ")})
}
