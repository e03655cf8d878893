package launch

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"net/http"
	"time"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/oauth"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// signedIn is the OAuth sign-in an observation of a remote entry used.
type signedIn struct {
	pin    *lockfile.OAuth // issuer and resource, as the lock pins them
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
	return fmt.Sprintf("server %q now signs in with the authorization server %s, not the locked %s: review who issues its tokens, then re-lock it ('mcpsum lock --name %s')", e.Server, e.Observed, e.Locked, e.Server)
}

// observeRemote is observe, signing in when a remote server answers 401
// with OAuth metadata: a kept token of the locked issuer first, else a
// refresh, else (with opts.Authorize) an interactive sign-in. accept is set
// for a (re-)lock, which may move the entry to another issuer; verify
// reports that as drift (*IssuerChangedError).
func observeRemote(ctx context.Context, name string, entry *lockfile.Server, prefer string, opts Options, accept bool) (*mcpwire.Hello, *mcpwire.Surface, *signedIn, error) {
	if !entry.Remote() {
		h, s, err := observe(ctx, name, entry, prefer, opts)
		return h, s, nil, err
	}
	var si *signedIn
	if p := entry.OAuth; p != nil {
		if tok, _ := oauth.Load(p.Resource, p.Issuer); tok.Valid(timeNow()) {
			si = &signedIn{pin: p, bearer: tok.AccessToken}
			opts.bearer = tok.AccessToken
		}
	}
	h, s, err := observe(ctx, name, entry, prefer, opts)
	var ae *mcphttp.AuthError
	if !errors.As(err, &ae) || ae.Status != 401 {
		return h, s, si, err
	}
	metadata, _ := oauth.Challenge(ae.Header)
	u, perr := netrule.ParseServerURL(entry.URL)
	if perr != nil {
		return nil, nil, nil, perr
	}
	client := mcphttp.NewSignInClient(u)
	srv, derr := oauth.Discover(ctx, client, entry.URL, metadata)
	if derr != nil {
		return nil, nil, nil, hint.Errorf("or pass a token you obtained with --header Authorization=VAR", "server %q answered 401 and its OAuth metadata cannot be used: %w", name, derr)
	}
	if p := entry.OAuth; p != nil && p.Issuer != srv.Issuer && !accept {
		return nil, nil, nil, &IssuerChangedError{Server: name, Locked: p.Issuer, Observed: srv.Issuer}
	}
	tok, err := token(ctx, name, client, srv, opts, si)
	if err != nil {
		return nil, nil, nil, err
	}
	si = &signedIn{pin: &lockfile.OAuth{Issuer: srv.Issuer, Resource: srv.Resource}, bearer: tok.AccessToken}
	opts.bearer = tok.AccessToken
	h, s, err = observe(ctx, name, entry, prefer, opts)
	return h, s, si, err
}

// token returns an access token for srv: kept (unless it was just
// refused), refreshed, or from an interactive sign-in; it is kept in the
// private state folder.
func token(ctx context.Context, name string, client *http.Client, srv *oauth.Server, opts Options, refused *signedIn) (*oauth.Token, error) {
	kept, err := oauth.Load(srv.Resource, srv.Issuer)
	if err != nil {
		return nil, err
	}
	if kept.Valid(timeNow()) && (refused == nil || refused.bearer != kept.AccessToken) {
		return kept, nil
	}
	var tok *oauth.Token
	if kept != nil && kept.RefreshToken != "" {
		tok, _ = oauth.Refresh(ctx, client, srv, kept)
	}
	if tok == nil {
		if opts.Authorize == nil {
			return nil, hint.Errorf("run 'mcpsum lock --name "+termtext.ShellArg(name)+"' in a terminal to sign in", "server %q needs an OAuth sign-in with %s and no kept token works", name, srv.Issuer)
		}
		tok, err = oauth.Login(ctx, client, srv, oauth.Options{Open: func(u string) error { return opts.Authorize(name, u) }})
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
	}
	if err := netrule.HeaderValue(tok.AccessToken); err != nil {
		return nil, fmt.Errorf("server %q: the access token from %s %v", name, srv.Issuer, err)
	}
	if err := oauth.Save(tok); err != nil {
		return nil, fmt.Errorf("server %q: keeping the OAuth token: %w", name, err)
	}
	return tok, nil
}

// timeNow is time.Now (a variable for tests of expiry).
var timeNow = time.Now
