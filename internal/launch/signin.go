package launch

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/oauth"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// signedIn is the OAuth sign-in an observation of a remote entry used.
type signedIn struct {
	pin    *lockfile.OAuth // as the lock pins it
	bearer string
}

// withOAuth is target with the sign-in observed (none: target's own pin
// when the server never asked, so a kept token that still works keeps it).
func withOAuth(target *lockfile.Server, si *signedIn) *lockfile.Server {
	if si == nil || !target.Remote() {
		return target
	}
	t := *target
	t.OAuth = si.pin
	return &t
}

// IssuerChangedError is a remote server that now sends its users to another
// authorization server than the locked one: definitional drift.
type IssuerChangedError struct {
	Server, Locked, Observed string
}

func (e *IssuerChangedError) Error() string {
	return fmt.Sprintf("server %q now signs in with the authorization server %s, not the locked %s", e.Server, e.Observed, e.Locked)
}

// Hints: review, then re-lock.
func (e *IssuerChangedError) Hints() []string {
	return []string{"review who issues its tokens, then re-lock it: mcpsum lock --name " + termtext.ShellArg(e.Server)}
}

// PinChangedError is a remote server whose sign-in now differs from the
// locked oauth pin in its resource or its scopes (Kind is
// lockfile.KindOAuthResource or lockfile.KindOAuthScopes): definitional
// drift. Locked and Observed are as in lockfile.Finding.
type PinChangedError struct {
	Server, Kind, Locked, Observed string
}

func (e *PinChangedError) Error() string {
	what := "names the resource"
	if e.Kind == lockfile.KindOAuthScopes {
		what = "asks for the scopes"
	}
	return fmt.Sprintf("server %q now %s %q, not the locked %q", e.Server, what, e.Observed, e.Locked)
}

// Hints: review, then re-lock.
func (e *PinChangedError) Hints() []string {
	return []string{"review what its tokens are for, then re-lock it: mcpsum lock --name " + termtext.ShellArg(e.Server)}
}

// Finding is the drift the error stands for.
func (e *PinChangedError) Finding() lockfile.Finding {
	return lockfile.Finding{Class: lockfile.Definitional, Kind: e.Kind, Change: lockfile.Changed, Locked: e.Locked, Observed: e.Observed}
}

// maxSignIns bounds the sign-ins of one observation: the first, and one
// step-up to the scopes a server's 403 names (a server that keeps asking
// for a scope it was granted gets no third).
const maxSignIns = 2

// observeRemote is observe, signing in when a remote server answers 401
// with OAuth metadata (or 403 insufficient_scope, a step-up): a kept token
// of the locked issuer and resource first, else a refresh, else (with
// opts.Authorize) an interactive sign-in. accept is set for a (re-)lock,
// which may move the entry to another issuer, resource or wider scopes and
// asks for the scopes a proxy learned a call needs; verify reports those
// as drift (*IssuerChangedError, *PinChangedError).
func observeRemote(ctx context.Context, name string, entry *lockfile.Server, prefer string, opts Options, accept bool) (*mcpwire.Hello, *mcpwire.Surface, *signedIn, error) {
	if !entry.Remote() {
		h, s, err := observe(ctx, name, entry, prefer, opts)
		return h, s, nil, err
	}
	var si *signedIn
	var stepUp []string // scopes to add at the next sign-in
	if p := entry.OAuth; p != nil && p.Issuer != "" {
		tok, _ := oauth.Load(p.Resource, p.Issuer)
		switch {
		case accept && tok != nil && !tok.Grants(tok.StepUp):
			stepUp = tok.StepUp // a proxy's call needed more: sign in again
		case tok.Valid(timeNow()) && tok.For(entry.URL):
			si = &signedIn{pin: p, bearer: tok.AccessToken}
			opts.bearer = tok.AccessToken
		}
	}
	var h *mcpwire.Hello
	var s *mcpwire.Surface
	var err error
	if stepUp == nil {
		h, s, err = observe(ctx, name, entry, prefer, opts)
	} else {
		err = &mcphttp.AuthError{URL: entry.URL, Status: http.StatusForbidden, Header: `Bearer error="insufficient_scope"`}
	}
	for signIns := 0; ; signIns++ {
		var ae *mcphttp.AuthError
		if !errors.As(err, &ae) || !(ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden) {
			return h, s, si, err
		}
		ch := oauth.ParseChallenge(ae.Header)
		if (ae.Status == http.StatusForbidden && ch.Error != "insufficient_scope") || ownAuthorization(entry) {
			return h, s, si, err // a refusal of the credentials the entry sends itself: no sign-in
		}
		if signIns == maxSignIns {
			return nil, nil, nil, fmt.Errorf("server %q still refuses the token after signing in with the scopes it named (%s): %w", name, strings.Join(si.pin.Scopes, " "), err)
		}
		stepUp = append(stepUp, ch.Scopes()...)
		si, err = signIn(ctx, name, entry, ch, stepUp, opts, si, accept)
		if err != nil {
			return nil, nil, nil, err
		}
		opts.bearer = si.bearer
		h, s, err = observe(ctx, name, entry, prefer, opts)
	}
}

// ownAuthorization reports an entry that sends its own Authorization
// header (--header Authorization=VAR): mcpsum does not sign it in.
func ownAuthorization(entry *lockfile.Server) bool {
	for n := range entry.Headers {
		if strings.EqualFold(n, "Authorization") {
			return true
		}
	}
	return false
}

// signIn gets a token after the server refused the request (challenge ch):
// discovery (oauth.Discover), the drift checks against the locked pin when
// not accepting, then a kept, refreshed or (interactive) new token for the
// pin's scopes, the challenge's and stepUp.
func signIn(ctx context.Context, name string, entry *lockfile.Server, ch oauth.Challenge, stepUp []string, opts Options, refused *signedIn, accept bool) (*signedIn, error) {
	srv, client, err := discoverFor(ctx, name, entry, ch)
	if err != nil {
		return nil, err
	}
	p := entry.OAuth
	same := p != nil && p.Issuer == srv.Issuer && p.Resource == srv.Resource
	if p != nil && p.Issuer != "" && !accept {
		if err := driftOf(name, p, srv, stepUp); err != nil {
			return nil, err
		}
	}
	if same {
		srv.Scopes = append(srv.Scopes, p.Scopes...)
	}
	srv.Scopes = append(srv.Scopes, stepUp...)
	slices.Sort(srv.Scopes)
	srv.Scopes = slices.Compact(srv.Scopes)
	var bearer string
	if refused != nil {
		bearer = refused.bearer
	}
	tok, err := token(ctx, name, entry, client, srv, opts, bearer)
	if err != nil {
		return nil, err
	}
	pin := &lockfile.OAuth{Issuer: srv.Issuer, Resource: srv.Resource, Scopes: srv.Scopes}
	if p != nil {
		pin.ClientID, pin.ClientSecretEnv = p.ClientID, p.ClientSecretEnv
	}
	if pin.ClientID == "" && tok.Client.ID == opts.ClientMetadataURL && opts.ClientMetadataURL != "" {
		pin.ClientID = opts.ClientMetadataURL // signed in with the organisation's document: every machine does
	}
	return &signedIn{pin: pin, bearer: tok.AccessToken}, nil
}

// discoverFor runs discovery for a remote entry with the sign-in client
// (vetted hosts; this machine only when the server is here).
func discoverFor(ctx context.Context, name string, entry *lockfile.Server, ch oauth.Challenge) (*oauth.Server, *http.Client, error) {
	u, err := netrule.ParseServerURL(entry.URL)
	if err != nil {
		return nil, nil, err
	}
	client := mcphttp.NewSignInClient(u)
	srv, err := oauth.Discover(ctx, client, entry.URL, ch)
	if err != nil {
		return nil, nil, hint.Errorf("pass a token you obtained yourself with --header Authorization=VAR", "server %q answered %s and its OAuth metadata cannot be used: %w", name, statusWord(ch), err)
	}
	return srv, client, nil
}

func statusWord(ch oauth.Challenge) string {
	if ch.Error == "insufficient_scope" {
		return "403 insufficient_scope"
	}
	return "401"
}

// driftOf compares a discovered sign-in with the locked pin: another
// issuer, another resource, or scopes the lock does not grant.
func driftOf(name string, p *lockfile.OAuth, srv *oauth.Server, stepUp []string) error {
	if p.Issuer != srv.Issuer {
		return &IssuerChangedError{Server: name, Locked: p.Issuer, Observed: srv.Issuer}
	}
	if p.Resource != srv.Resource {
		return &PinChangedError{Server: name, Kind: lockfile.KindOAuthResource, Locked: p.Resource, Observed: srv.Resource}
	}
	for _, sc := range append(slices.Clone(srv.Scopes), stepUp...) {
		if !slices.Contains(p.Scopes, sc) {
			return &PinChangedError{Server: name, Kind: lockfile.KindOAuthScopes, Locked: strings.Join(p.Scopes, " "), Observed: strings.Join(append(srv.Scopes, stepUp...), " ")}
		}
	}
	return nil
}

// token returns an access token for srv with srv.Scopes: kept (unless it
// is the one just refused or lacks a scope), refreshed, or from an
// interactive sign-in; it is kept in the private state folder.
func token(ctx context.Context, name string, entry *lockfile.Server, client *http.Client, srv *oauth.Server, opts Options, refused string) (*oauth.Token, error) {
	kept, err := oauth.Load(srv.Resource, srv.Issuer)
	if err != nil {
		return nil, err
	}
	if kept != nil && !kept.Grants(srv.Scopes) {
		kept = nil // a narrower grant: sign in again for the scopes asked
	}
	if kept.Valid(timeNow()) && kept.AccessToken != refused && kept.For(entry.URL) {
		return kept, nil
	}
	var tok *oauth.Token
	if kept != nil && kept.RefreshToken != "" {
		if err := fillSecret(name, entry, &kept.Client); err != nil {
			return nil, err
		}
		tok, _ = oauth.Refresh(ctx, client, srv, kept)
	}
	if tok == nil {
		if opts.Authorize == nil {
			return nil, hint.Errorf("run 'mcpsum lock --name "+termtext.ShellArg(name)+"' in a terminal to sign in", "server %q needs an OAuth sign-in with %s and no kept token works", name, srv.Issuer)
		}
		lo := oauth.Options{Open: func(u string) error { return opts.Authorize(name, u) }, MetadataURL: opts.ClientMetadataURL}
		if p := entry.OAuth; p != nil && p.ClientID != "" {
			lo.ClientID = p.ClientID
			cl := oauth.Client{ID: p.ClientID}
			if err := fillSecret(name, entry, &cl); err != nil {
				return nil, err
			}
			lo.ClientSecret = cl.Secret
		}
		if tok, err = oauth.Login(ctx, client, srv, lo); err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
	}
	if !tok.For(entry.URL) {
		return nil, fmt.Errorf("server %q: the token is for %s, which does not cover %s; refused", name, srv.Resource, entry.URL)
	}
	if err := oauth.Save(tok); err != nil {
		return nil, fmt.Errorf("server %q: keeping the OAuth token: %w", name, err)
	}
	return tok, nil
}

// fillSecret puts a pre-registered client's secret (from the variable the
// pin names) into cl; a client mcpsum registered keeps its own.
func fillSecret(name string, entry *lockfile.Server, cl *oauth.Client) error {
	p := entry.OAuth
	if cl.Registered || p == nil || p.ClientSecretEnv == "" || cl.ID != p.ClientID {
		return nil
	}
	v := os.Getenv(p.ClientSecretEnv)
	if v == "" {
		return hint.Errorf("export "+p.ClientSecretEnv+" (its value is sent to the authorization server only, never stored)",
			"server %q signs in as the client %q, whose secret comes from $%s, which is not set", name, p.ClientID, p.ClientSecretEnv)
	}
	cl.Secret = v
	registerSecret(v, "$"+p.ClientSecretEnv)
	return nil
}

// timeNow is time.Now (a variable for tests of expiry).
var timeNow = time.Now
