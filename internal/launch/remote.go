package launch

import (
	"context"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/oauth"
	"github.com/mcpsum/mcpsum/internal/redact"
	"github.com/mcpsum/mcpsum/internal/termtext"
	"github.com/mcpsum/mcpsum/pkg/lockfile"
)

// Connect opens a session's transport to a locked entry: the process of a
// local entry (Start), or the Streamable HTTP endpoint of a remote one with
// its headers filled from the environment. cleanup runs after the
// transport has stopped.
func Connect(name string, entry *lockfile.Server, opts Options) (mcpwire.Transport, func(), error) {
	if !entry.Remote() {
		p, cleanup, err := Start(name, entry, opts)
		if err != nil {
			return nil, nil, err
		}
		return mcpwire.NewStdio(p, opts.MaxLine), cleanup, nil
	}
	h, err := dialRemote(name, entry, opts)
	if err != nil {
		return nil, nil, err
	}
	return h, func() {}, nil
}

func dialRemote(name string, entry *lockfile.Server, opts Options) (*mcpwire.HTTP, error) {
	hdr, err := RemoteHeaders(entry)
	if err != nil {
		return nil, err // observe names the server
	}
	if opts.bearer != "" {
		registerSecret(opts.bearer, "OAuth access token")
		hdr.Set("Authorization", "Bearer "+opts.bearer)
	}
	spec := mcphttp.Spec{URL: entry.URL, Header: hdr, MaxMessage: opts.MaxLine}
	if opts.Note != nil {
		spec.Note = func(msg string) { opts.Note(name, msg) }
	}
	return mcpwire.DialHTTP(spec)
}

// RemoteHeaders builds the headers of a remote entry from the environment:
// each locked header name gets the value of the variable the lock names.
// A variable that is unset or empty, or holds a line break, is an error
// naming the variable, never its value.
func RemoteHeaders(entry *lockfile.Server) (http.Header, error) {
	names := make([]string, 0, len(entry.Headers))
	for n := range entry.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	h := http.Header{}
	for _, n := range names {
		env := entry.Headers[n]
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return nil, hint.Errorf("export "+env+" (its value is sent as the header, never stored) and run again", "header %s takes its value from $%s, which is not set", n, env)
		}
		if err := netrule.HeaderValue(v); err != nil {
			return nil, hint.Errorf("set it to the header's value only", "header %s: the value of $%s %v", n, env, err)
		}
		h.Set(n, v)
		registerSecret(v, "$"+env)
	}
	return h, nil
}

// RemoteSpec is how the proxy reaches a remote entry: the locked headers
// with their values from the environment and, for an entry that signs in
// (oauth), the access token kept in the private state folder, refreshed
// when it expired. No sign-in happens here (the proxy has no terminal): a
// missing or spent one is an error naming the command that signs in.
func RemoteSpec(ctx context.Context, name string, entry *lockfile.Server, opts Options) (mcphttp.Spec, error) {
	hdr, err := RemoteHeaders(entry)
	if err != nil {
		return mcphttp.Spec{}, fmt.Errorf("server %q: %w", name, err)
	}
	if p := entry.OAuth; p != nil {
		tok, err := keptToken(ctx, name, entry, opts, "", "")
		if err != nil {
			return mcphttp.Spec{}, err
		}
		hdr.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return mcphttp.Spec{URL: entry.URL, Header: hdr, MaxMessage: opts.MaxLine}, nil
}

// RefreshBearer is a new Authorization value for a remote entry whose
// server refused the bearer token refused (HTTP 401 in the middle of a
// proxy's session, with the WWW-Authenticate header challenge; "" when
// unknown): the kept token when another process refreshed it meanwhile,
// else the kept one refreshed exactly as verify refreshes it.
func RefreshBearer(ctx context.Context, name string, entry *lockfile.Server, opts Options, refused, challenge string) (string, error) {
	if entry.OAuth == nil {
		return "", fmt.Errorf("server %q refused the credentials from the environment (HTTP 401)", name)
	}
	tok, err := keptToken(ctx, name, entry, opts, strings.TrimPrefix(refused, "Bearer "), challenge)
	if err != nil {
		return "", err
	}
	return "Bearer " + tok.AccessToken, nil
}

// keptToken is the kept access token of entry's sign-in, refreshed when it
// expired or is the one the server refused: discovery from the server's
// challenge (the same oauth.Discover as verify's, falling back to the
// well-known URLs), the locked issuer and resource checked, the refresh
// authenticated as the kept client.
func keptToken(ctx context.Context, name string, entry *lockfile.Server, opts Options, refused, challenge string) (*oauth.Token, error) {
	p := entry.OAuth
	lockArg := ""
	if opts.Lockfile != "" {
		lockArg = "--lockfile " + termtext.ShellArg(opts.Lockfile) + " "
	}
	signIn := "sign in from a terminal: mcpsum lock " + lockArg + "--name " + termtext.ShellArg(name)
	tok, err := oauth.Load(p.Resource, p.Issuer)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	if tok != nil && !tok.For(entry.URL) {
		return nil, fmt.Errorf("server %q: the kept token is for %s, which does not cover %s; refused", name, tok.Resource, entry.URL)
	}
	if tok.Valid(timeNow()) && tok.AccessToken != refused {
		useToken(tok)
		return tok, nil
	}
	if tok == nil || tok.RefreshToken == "" {
		return nil, hint.Errorf(signIn, "server %q signs in with %s and this machine has no valid sign-in for it", name, p.Issuer)
	}
	ch := oauth.ParseChallenge(challenge)
	ch.Bearer = true
	srv, client, err := discoverFor(ctx, name, entry, ch)
	if err != nil {
		return nil, hint.Wrap(err, signIn)
	}
	// The issuer and resource are checked as verify checks them; scopes
	// are not: a call that needs more gets its 403 (StepUp).
	if err := driftOf(name, &lockfile.OAuth{Issuer: p.Issuer, Resource: p.Resource}, &oauth.Server{Issuer: srv.Issuer, Resource: srv.Resource}, nil); err != nil {
		return nil, err
	}
	if err := fillSecret(name, entry, &tok.Client); err != nil {
		return nil, err
	}
	useToken(tok)
	if tok, err = oauth.Refresh(ctx, client, srv, tok); err != nil {
		return nil, hint.Errorf(signIn, "server %q: its sign-in expired and could not be refreshed (%v)", name, err)
	}
	if err := oauth.Save(tok); err != nil {
		return nil, fmt.Errorf("server %q: keeping the refreshed OAuth token: %w", name, err)
	}
	useToken(tok)
	return tok, nil
}

// useToken keeps a token's secrets for redaction (internal/redact): a
// server or authorization server that reflects one does not get it printed.
func useToken(t *oauth.Token) {
	registerSecret(t.AccessToken, "OAuth access token")
	registerSecret(t.RefreshToken, "OAuth refresh token")
	if t.Client.Secret != "" {
		registerSecret(t.Client.Secret, "OAuth client secret")
	}
}

// registerSecret keeps a credential mcpsum sends for redaction.
func registerSecret(v, label string) { redact.Add(v, label) }

// StepUp takes a remote server's 403 insufficient_scope (challenge: its
// WWW-Authenticate) in the middle of a proxy's session, where no browser
// can be opened: the scopes it names beyond this machine's grant are noted
// with the kept token, for the next 'mcpsum lock' of the entry to sign in
// with (and pin, for review), and the refused call is answered with the
// error returned, naming that command. nil: not a step-up (the session
// ends with the refusal).
func StepUp(name string, entry *lockfile.Server, opts Options, challenge string) error {
	ch := oauth.ParseChallenge(challenge)
	p := entry.OAuth
	if p == nil || ch.Error != "insufficient_scope" || len(ch.Scopes()) == 0 {
		return nil
	}
	tok, err := oauth.Load(p.Resource, p.Issuer)
	if err != nil || tok == nil {
		return nil
	}
	lockArg := ""
	if opts.Lockfile != "" {
		lockArg = "--lockfile " + termtext.ShellArg(opts.Lockfile) + " "
	}
	var missing []string
	for _, sc := range ch.Scopes() {
		if !tok.Grants([]string{sc}) && lockfile.ValidScope(sc) {
			missing = append(missing, sc)
		}
	}
	if len(missing) == 0 {
		return fmt.Errorf("server %q refused the call for the OAuth scope %s, which its sign-in was granted: ask its operator", name, termtext.Quoted(ch.Scope, 200))
	}
	for _, sc := range missing {
		if !slices.Contains(tok.StepUp, sc) {
			tok.StepUp = append(tok.StepUp, sc)
		}
	}
	if err := oauth.Save(tok); err != nil {
		return fmt.Errorf("server %q needs the OAuth scope %s for this call and noting it failed: %v", name, strings.Join(missing, " "), err)
	}
	return hint.Errorf("review it, then sign in with it from a terminal (the entry's oauth.scopes then show it): mcpsum lock "+lockArg+"--name "+termtext.ShellArg(name),
		"server %q needs the OAuth scope %s for this call, beyond what the lock's sign-in grants (%s)", name, strings.Join(missing, " "), strings.Join(tok.Scopes, " "))
}
