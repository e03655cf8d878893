package launch

import (
	"context"
	"fmt"
	"github.com/mcpsum/mcpsum/internal/hint"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/mcpsum/mcpsum/internal/mcpwire"
	"github.com/mcpsum/mcpsum/internal/mcpwire/mcphttp"
	"github.com/mcpsum/mcpsum/internal/netrule"
	"github.com/mcpsum/mcpsum/internal/oauth"
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
		tok, err := keptToken(ctx, name, entry, opts, "")
		if err != nil {
			return mcphttp.Spec{}, err
		}
		hdr.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return mcphttp.Spec{URL: entry.URL, Header: hdr, MaxMessage: opts.MaxLine}, nil
}

// RefreshBearer is a new Authorization value for a remote entry whose
// server refused the bearer token refused (HTTP 401 in the middle of a
// proxy's session): the kept token when another process refreshed it
// meanwhile, else the kept one refreshed.
func RefreshBearer(ctx context.Context, name string, entry *lockfile.Server, opts Options, refused string) (string, error) {
	if entry.OAuth == nil {
		return "", fmt.Errorf("server %q refused the credentials from the environment (HTTP 401)", name)
	}
	tok, err := keptToken(ctx, name, entry, opts, strings.TrimPrefix(refused, "Bearer "))
	if err != nil {
		return "", err
	}
	return "Bearer " + tok.AccessToken, nil
}

// keptToken is the kept access token of entry's sign-in, refreshed when it
// expired or is the one the server refused.
func keptToken(ctx context.Context, name string, entry *lockfile.Server, opts Options, refused string) (*oauth.Token, error) {
	p := entry.OAuth
	lockArg := ""
	if opts.Lockfile != "" {
		lockArg = "--lockfile " + opts.Lockfile + " "
	}
	signIn := fmt.Sprintf("run 'mcpsum lock %s--name %s' in a terminal to sign in", lockArg, name)
	tok, err := oauth.Load(p.Resource, p.Issuer)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", name, err)
	}
	if tok.Valid(timeNow()) && tok.AccessToken != refused {
		return tok, nil
	}
	if tok == nil || tok.RefreshToken == "" {
		return nil, fmt.Errorf("server %q signs in with %s and this machine has no valid sign-in for it: %s", name, p.Issuer, signIn)
	}
	u, err := netrule.ParseServerURL(entry.URL)
	if err != nil {
		return nil, err
	}
	client := mcphttp.NewSignInClient(u)
	srv, err := oauth.Discover(ctx, client, entry.URL, "")
	if err != nil {
		return nil, fmt.Errorf("server %q: its sign-in expired and its OAuth metadata cannot be read to refresh it: %w; %s", name, err, signIn)
	}
	if srv.Issuer != p.Issuer {
		return nil, &IssuerChangedError{Server: name, Locked: p.Issuer, Observed: srv.Issuer}
	}
	if tok, err = oauth.Refresh(ctx, client, srv, tok); err != nil {
		return nil, fmt.Errorf("server %q: its sign-in expired and could not be refreshed (%v): %s", name, err, signIn)
	}
	if err := netrule.HeaderValue(tok.AccessToken); err != nil {
		return nil, fmt.Errorf("server %q: the access token from %s %v", name, srv.Issuer, err)
	}
	if err := oauth.Save(tok); err != nil {
		return nil, fmt.Errorf("server %q: keeping the refreshed OAuth token: %w", name, err)
	}
	return tok, nil
}
